/**
 * The simulated upstream service as a Web-standard handler: the six routes at their exact paths,
 * `X-SVC-AK` auth (or the `apikey` parameter, deprecated on raw data), `jsonp` wrapping, the
 * per-host rate limit with X-RateLimit headers on every response, and answers that change only
 * at 3-second steps. Only Request/Response/URL/Headers: it runs in Node, browsers and workers.
 * The choices the spec leaves open are listed in docs/upstream-assumptions.md.
 */
import { findRoute, parseQuery, routes, type RouteName, type RouteParams } from '../api/index.ts';
import { memoizeByQuery } from '../internal/memo.ts';
import { createSimulator, STEP_MS, type Simulator } from './model/index.ts';
import { SlidingWindowLimiter } from './rate-limit.ts';

export interface UpstreamOptions {
  /** The key `X-SVC-AK` (or `apikey`) must carry. */
  apiKey: string;
  /** Same seed, same numbers. Default 1. */
  seed?: number;
  /** Clock in ms, default Date.now; injectable for tests. */
  now?: () => number;
  /** Sites served (default DEMO_HOSTS); any other host is refused with 403. */
  hosts?: readonly string[];
  /** Requests per minute per host; default 200 (spec 8). */
  rateLimitPerMinute?: number;
  /** The model answering (default: one made from `seed` and `hosts`); the cache's simulation shares one across runs. */
  simulator?: Simulator;
  /** A route's body at `nowMs` (default: the model's answer as JSON); the cache's simulation memoises it per 3 s step. */
  answerText?: (route: RouteName, params: RouteParams<RouteName>, nowMs: number) => string;
}

const KEY_HEADER = 'x-svc-ak';
const RATE_WINDOW_MS = 60_000;
/** Identifier characters only: the name becomes code in the caller's page. */
const JSONP_NAME = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;
/** Requests that name no served host share one budget. */
const OTHER_HOSTS = '*';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Compares without stopping at the first difference, so timing does not reveal the key. */
function sameKey(given: string, expected: string): boolean {
  let difference = given.length ^ expected.length;
  for (let i = 0; i < Math.max(given.length, expected.length); i++) {
    difference |= (given.charCodeAt(i) | 0) ^ (expected.charCodeAt(i) | 0);
  }
  return difference === 0;
}

interface Problem {
  status: number;
  code: string;
  message: string;
  param?: string;
  headers?: Record<string, string>;
}

/** One answer of the upstream: what a Web handler sends as its `Response`, and a caller in process reads as it is. */
export interface UpstreamReply {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/** What the upstream reads of a call: its method, its URL, and the key header (`X-SVC-AK`). */
export interface UpstreamCall {
  method: string;
  url: URL;
  keyHeader: string | null;
}

/**
 * The simulated upstream as a Web-standard handler; {@link createUpstreamAnswerer} is the same
 * service without the Request and Response, for callers in process.
 */
export function createUpstreamHandler(options: UpstreamOptions): (request: Request) => Promise<Response> {
  const answer = createUpstreamAnswerer(options);
  return async (request) => {
    const reply = answer({
      method: request.method,
      url: new URL(request.url),
      keyHeader: request.headers.get(KEY_HEADER),
    });
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  };
}

/** The service's answer to one call: auth, the rate limit and its headers, the route's body. */
export function createUpstreamAnswerer(options: UpstreamOptions): (call: UpstreamCall) => UpstreamReply {
  const simulator = options.simulator ?? createSimulator({ seed: options.seed, hosts: options.hosts });
  const clock = options.now ?? Date.now;
  const answerText =
    options.answerText ?? ((route, params, nowMs) => JSON.stringify(simulator.answer(route, params, nowMs)));
  const limiter = new SlidingWindowLimiter(options.rateLimitPerMinute ?? 200, RATE_WINDOW_MS);
  /** A route's query, validated once per distinct query string: the same ones come every 3 s. */
  const parseParams = memoizeByQuery((route: RouteName, query: string) =>
    parseQuery(route, new URLSearchParams(query)),
  );

  return ({ method, url, keyHeader }) => {
    const now = clock();
    const hostParam = (url.searchParams.get('host') ?? '').toLowerCase();
    // video@ hosts count against their site's budget: it is one site ID with a prefix (spec 5.4).
    const bucket = simulator.serves(hostParam) ? hostParam.replace(/^video@/, '') : OTHER_HOSTS;
    let remaining = () => limiter.remaining(bucket, now);

    const respond = (status: number, body: string, headers: Record<string, string>): UpstreamReply => ({
      status,
      headers: {
        'x-ratelimit-limit': String(limiter.limit),
        'x-ratelimit-remaining': String(remaining()),
        'x-content-type-options': 'nosniff',
        ...headers,
      },
      body,
    });
    const refuse = ({ status, code, message, param, headers }: Problem): UpstreamReply =>
      respond(
        status,
        JSON.stringify({ error: param === undefined ? { code, message } : { code, message, param } }),
        {
          'content-type': JSON_TYPE,
          'cache-control': 'no-store',
          ...headers,
        },
      );

    if (method !== 'GET' && method !== 'HEAD') {
      return refuse({
        status: 405,
        code: 'method_not_allowed',
        message: `${method} is not allowed: use GET`,
        headers: { allow: 'GET, HEAD' },
      });
    }
    const route = findRoute(url.pathname);
    if (!route) return refuse({ status: 404, code: 'not_found', message: `no endpoint at ${url.pathname}` });
    const live = routes[route].live;

    const queryKey = url.searchParams.get('apikey');
    const givenKey = keyHeader ?? queryKey;
    if (givenKey === null || givenKey === '') {
      return refuse({ status: 401, code: 'missing_key', message: 'send the API key in the X-SVC-AK header' });
    }
    if (!sameKey(givenKey, options.apiKey))
      return refuse({ status: 403, code: 'bad_key', message: 'the API key is not valid' });

    const decision = limiter.take(bucket, now);
    remaining = () => decision.remaining;
    if (!decision.allowed) {
      return refuse({
        status: 429,
        code: 'rate_limited',
        message: `more than ${limiter.limit} requests in a minute for this host`,
        headers: { 'retry-after': String(Math.ceil(decision.retryAfterMs / 1000)) },
      });
    }

    const query = new URLSearchParams(url.search);
    query.delete('apikey');
    const jsonp = live ? query.get('jsonp') : null;
    if (live) query.delete('jsonp');
    if (jsonp !== null && !JSONP_NAME.test(jsonp)) {
      return refuse({
        status: 400,
        code: 'bad_param',
        param: 'jsonp',
        message: 'jsonp must be a function name made of letters, digits, _ and $',
      });
    }
    const parsed = parseParams(route, String(query));
    if (!parsed.success) return refuse({ status: 400, code: 'bad_param', ...parsed.problem });
    const host = parsed.params.host;
    if (!simulator.serves(host))
      return refuse({
        status: 403,
        code: 'forbidden_host',
        param: 'host',
        message: `host ${host} is not a site this key has access to`,
      });
    if (!live && host.startsWith('video@')) {
      return refuse({
        status: 400,
        code: 'bad_param',
        param: 'host',
        message: 'host video@… is only for real-time endpoints',
      });
    }

    const json = answerText(route, parsed.params, now);
    const headers: Record<string, string> = {
      'content-type': jsonp === null ? JSON_TYPE : 'application/javascript; charset=utf-8',
      'cache-control': `public, max-age=${live ? Math.ceil((STEP_MS - (now % STEP_MS)) / 1000) : routes[route].ttlMs / 1000}`,
    };
    if (!live && queryKey !== null) {
      headers.deprecation = 'true';
      headers.warning =
        '299 - "the apikey query parameter is deprecated for raw data: send the X-SVC-AK header"';
    }
    return respond(200, jsonp === null ? json : `${jsonp}(${json});`, headers);
  };
}
