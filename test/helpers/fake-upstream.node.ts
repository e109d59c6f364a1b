/**
 * Node tests only. A scriptable stand-in for the upstream service on 127.0.0.1:0, in the style of
 * nginx-tests / Varnish .vtc: it counts and records every request, answers valid JSON for each
 * route by default, can hold answers behind a gate, and can be told to misbehave.
 */
import { findRoute, type RouteName } from '../../src/api/index.ts';
import { listen } from '../../src/runtime/node-http.ts';

export interface UpstreamCall {
  url: URL;
  headers: Headers;
  /** Date.now() when the request arrived. */
  at: number;
}

export type Responder = (request: Request, call: UpstreamCall, index: number) => Response | Promise<Response>;

export interface FakeUpstream {
  url: string;
  calls: UpstreamCall[];
  /** Replaces how requests are answered (default: `validResponse`). */
  respond: Responder;
  /** Holds every answer until the returned function is called. */
  hold(): () => void;
  /** Resolves once `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

const RAW_RECORD = {
  experiment_id: 'e1',
  status: 'active',
  type: 'headline',
  model: 'epsilon_greedy',
  host: 'example.com',
  domain: 'example.com',
  path: 'example.com/news/a',
  location: null,
  specific_location: null,
  exp_metadata: null,
  winning_variant: null,
  convergence_type: null,
  value_remaining: null,
  valid: 'true',
  content_type: 'text',
  content: 'Headline A',
  variant_id: 'v1',
  variant_metadata: null,
  user_email: 'editor@example.com',
  sections: ['news'],
  created_at: '2026-11-01T00:00:00Z',
  archived_at: null,
  activated_at: null,
  completed_at: null,
  total_outcomes: 10,
  total_failures: 2,
  outcome_last_received_at: null,
  num_outcomes: 10,
  num_variants: 2,
  strategy_last_updated_at: null,
  user_id: 42,
  engagement_mean: 1,
  ctr_mean: 0.1,
  engaged_clicks_mean: 0.2,
  probability: 0.5,
  payout_coefficients: [1],
  priors: [1],
  engagement_intervals: [1],
  ctr_intervals: [1],
  engaged_click_intervals: [1],
  outcome_counts: [1],
};

/** A body that passes the route's response schema; `seq` and `servedAt` let tests tell fills apart. */
export function validBody(route: RouteName, seq: number, servedAt = Date.now()): unknown {
  switch (route) {
    case 'toppages':
      return { pages: [{ title: `Page ${seq}`, path: '/a', stats: { people: seq } }], seq, servedAt };
    case 'summary':
      return { new: { data: { '0': seq }, type: 'string' } };
    case 'referrers':
      return { referrers: { 'google.com': seq } };
    case 'top_geo':
      return { geo: { regions: {}, countries: { FR: seq }, total: seq, cities: {}, metro_codes: {} } };
    case 'quickstats':
      return {
        data: {
          metrics: { seq, servedAt },
          host_metadata: { subdomain_handling: false },
          stats: { people: seq },
        },
      };
    case 'raw_data':
      return { status: 'success', data: [RAW_RECORD] };
  }
}

export function jsonResponse(
  body: unknown,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: {
      'content-type': 'application/json',
      'x-ratelimit-limit': '200',
      'x-ratelimit-remaining': '150',
      ...init.headers,
    },
  });
}

export const validResponse: Responder = (request, _call, index) => {
  const route = findRoute(new URL(request.url).pathname);
  if (!route) return jsonResponse({ error: 'no such path' }, { status: 404 });
  return jsonResponse(validBody(route, index + 1));
};

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const calls: UpstreamCall[] = [];
  let gate: Promise<void> | undefined;
  const waiters: { count: number; resolve: () => void }[] = [];
  const upstream: FakeUpstream = {
    url: '',
    calls,
    respond: validResponse,
    hold() {
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
    arrived(count) {
      if (calls.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close: async () => {},
  };
  const server = await listen(async (request) => {
    const call = { url: new URL(request.url), headers: request.headers, at: Date.now() };
    const index = calls.push(call) - 1;
    for (const waiter of waiters.filter((one) => calls.length >= one.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (gate) await gate;
    return upstream.respond(request, call, index);
  });
  upstream.url = server.url;
  upstream.close = server.close;
  return upstream;
}

/** A body stream that sends some bytes and then breaks the connection. */
export function cutBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"pages": [{"title": "cut'));
    },
    pull(controller) {
      controller.error(new Error('socket cut'));
    },
  });
}
