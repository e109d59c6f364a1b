/**
 * Cache hits on node:http without Web objects. Profiled under load, the Web path spent most of a
 * hit building Request, Headers and AbortSignal objects and streaming the stored Buffer through a
 * web stream; here a plain fresh hit is a Map lookup from the raw request target to its canonical
 * key, the stored entry, and one `writeHead` + `end` of the stored Buffer.
 *
 * Only GET/HEAD of a route path written exactly as the route table has it, with a valid query on
 * an allowed host, whose entry is fresh (or stale while its refill is in flight, which the fill
 * cache decides: `refillingEntry`), or a fold member whose answer derived from its group's fresh
 * wide answer is ready (`foldedHit`), is answered here. Everything else (other stale answers, miss,
 * errors, OPTIONS, unusual targets) is left to the Web handler, so every rule is written once
 * there; the hit-path test checks that both paths give the same status, headers and bytes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { findRoute, type RouteName } from '../../api/index.ts';
import { clientAddress, trustsAnyProxy, type TrustProxy } from './client-address.ts';
import type { ClientLimit } from './client-limit.ts';
import { EXPOSED_HEADERS, type Cors } from './cors.ts';
import type { FillCache } from '../cache/fill-cache.ts';
import type { FoldedHit } from '../cache/folded-answers.ts';
import type { FillContext } from '../cache/polled-keys.ts';
import type { CacheMetrics } from '../metrics.ts';
import { sendWebResponse, type NodeShortcut } from '../../runtime/node-http.ts';
import { resolveQuery } from './query.ts';
import {
  bodyOf,
  chooseEncoding,
  etagMatches,
  freshness,
  freshnessSeconds,
  JSON_CONTENT_TYPE,
  type Encoding,
  type StoredResponse,
} from '../../runtime/stored-response.ts';

/** Answers a plain fresh hit and returns true, or returns false having done nothing. */
export type HitPath = NodeShortcut;

export interface HitPathParts {
  prefix: string;
  hosts: ReadonlySet<string>;
  fills: FillCache;
  cors: Cors;
  /** The per-IP limit, counted here for hits (from the socket address, as node-http does). */
  clientLimit?: ClientLimit;
  /** Whom to believe about the reader's address, as the Web handler does. */
  trustProxy: TrustProxy;
  /** A limit this path cannot count (a custom `clientIp`): every request goes to the Web handler. */
  limited: boolean;
  hits: CacheMetrics['hits'];
  staleServes: CacheMetrics['staleServes'];
  /** Answers derived from a fold group's wide answer, by route. */
  folded: CacheMetrics['folded'];
  now: () => number;
  tooManyRequests(waitMs: number, origin: string | null): Response;
}

interface Target {
  key: string;
  context: FillContext;
  /** When the fill cache was last told of a hit on it: at most every TOUCH_EVERY_MS. */
  touchedAt: number;
}

/** Header lines of one answer, and what they were made from besides the stored entry. */
interface PreparedAnswer {
  freshUntil: number;
  age: number;
  remaining: number;
  origin: string | undefined;
  headers: string[];
}

/** Far below the Web handler's 4096-character URL limit, whatever the Host header adds. */
const MAX_TARGET_LENGTH = 2048;
/** Distinct query strings remembered; past this the memo starts over (a flood of distinct queries costs a parse each, as on the Web path). */
const MAX_TARGETS = 10_000;
const MAX_ENCODINGS = 256;
const HIT = { kind: 'hit' } as const;
const REFRESHING = { kind: 'stale', detail: 'refreshing' } as const;
type LabelledCounter = ReturnType<CacheMetrics['hits']['labels']>;
/** A fresh hit (a fold member's names the wide key it was derived from), or a stale entry whose refill is in flight. */
type HitStatus = { kind: 'hit'; folded?: string } | typeof REFRESHING;
/**
 * How often a hit tells the fill cache its key is polled (the LRU's recency, the refresh plan's
 * "polled lately", the shared tier's poll lists): all count in seconds, and per hit it was a
 * third of the hit path's own time.
 */
const TOUCH_EVERY_MS = 100;
const ENCODINGS: readonly Encoding[] = ['identity', 'gzip', 'br'];

/** The value of a request header as the Web handler's `Headers.get` gives it (repeats joined), read from the raw lines without building `req.headers`. */
function requestHeader(raw: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const line = raw[i]!;
    if (line.length === name.length && (line === name || line.toLowerCase() === name))
      value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

export function createHitPath(parts: HitPathParts): HitPath {
  const { fills, cors, clientLimit, now } = parts;
  const targets = new Map<string, Target>();
  const encodings = new Map<string, Encoding>();
  /** Per stored entry (kept no longer than it is), the last header lines of each way of answering it. */
  const prepared = new WeakMap<StoredResponse, (PreparedAnswer | undefined)[]>();
  /** Labelled counters by route: fresh hits, stale answers while refilling, folded answers. */
  const counters = {
    hit: new Map<RouteName, LabelledCounter>(),
    stale: new Map<RouteName, LabelledCounter>(),
    folded: new Map<RouteName, LabelledCounter>(),
  };
  const labelled = {
    hit: (route: RouteName) => parts.hits.labels({ route }),
    stale: (route: RouteName) => parts.staleServes.labels({ route, detail: REFRESHING.detail }),
    folded: (route: RouteName) => parts.folded.labels({ route }),
  };
  /** Counts one on the route's counter of `kind`, labelled once and kept. */
  const inc = (kind: keyof typeof counters, route: RouteName) => {
    let counter = counters[kind].get(route);
    if (!counter) counters[kind].set(route, (counter = labelled[kind](route)));
    counter.inc();
  };

  // Headers are read only when a proxy is trusted: hits stay one socket lookup without.
  const clientOf = trustsAnyProxy(parts.trustProxy)
    ? (req: IncomingMessage) =>
        clientAddress(
          req.socket.remoteAddress,
          {
            xForwardedFor: requestHeader(req.rawHeaders, 'x-forwarded-for'),
            forwarded: requestHeader(req.rawHeaders, 'forwarded'),
          },
          parts.trustProxy,
        )
    : (req: IncomingMessage) => req.socket.remoteAddress;

  /** The canonical key of a raw target, parsed once per distinct target; undefined for anything the Web handler must see. */
  const targetOf = (raw: string): Target | undefined => {
    const known = targets.get(raw);
    if (known) return known;
    if (raw.length > MAX_TARGET_LENGTH || raw.includes('#')) return undefined;
    const queryAt = raw.indexOf('?');
    const pathname = queryAt === -1 ? raw : raw.slice(0, queryAt);
    if (!pathname.startsWith(`${parts.prefix}/`)) return undefined;
    const name = findRoute(pathname.slice(parts.prefix.length));
    if (name === undefined) return undefined;
    const resolved = resolveQuery(
      name,
      new URLSearchParams(queryAt === -1 ? '' : raw.slice(queryAt + 1)),
      parts.hosts,
    );
    if (!resolved.ok) return undefined;
    if (targets.size >= MAX_TARGETS) targets.clear();
    const target: Target = { key: resolved.key, context: resolved.context, touchedAt: -Infinity };
    targets.set(raw, target);
    return target;
  };

  const encodingOf = (accept: string | undefined): Encoding => {
    if (accept === undefined) return 'identity';
    let encoding = encodings.get(accept);
    if (encoding === undefined) {
      encoding = chooseEncoding(accept);
      if (encodings.size >= MAX_ENCODINGS) encodings.clear();
      encodings.set(accept, encoding);
    }
    return encoding;
  };

  const countHit = (target: Target, status: HitStatus, at: number, folded: FoldedHit | undefined) => {
    const { route } = target.context;
    inc(status.kind, route);
    if (folded) inc('folded', route);
    if (at - target.touchedAt < TOUCH_EVERY_MS) return;
    target.touchedAt = at;
    if (folded) fills.countFoldedHit(folded);
    else fills.countHit(target.key, target.context);
  };

  /**
   * The header lines of an answer, made again only when one of them would change: another
   * stored entry or freshness, another second of Age or of the time left, another allowed origin.
   */
  const prepare = (
    stored: StoredResponse,
    status: HitStatus,
    encoding: Encoding,
    notModified: boolean,
    origin: string | undefined,
    at: number,
  ): string[] => {
    const { age, remaining } = freshnessSeconds(stored, at);
    let answers = prepared.get(stored);
    if (!answers) prepared.set(stored, (answers = []));
    // One slot per encoding, for 200 and 304 answers, fresh or refreshing.
    const slot =
      (ENCODINGS.indexOf(encoding) * 2 + (notModified ? 1 : 0)) * 2 + (status.kind === 'hit' ? 0 : 1);
    const known = answers[slot];
    if (
      known &&
      known.freshUntil === stored.freshUntil &&
      known.age === age &&
      known.remaining === remaining &&
      known.origin === origin
    )
      return known.headers;
    const fresh = freshness(stored, status, at);
    const headers = [
      'content-type',
      JSON_CONTENT_TYPE,
      'etag',
      stored.etag,
      'age',
      fresh.age,
      'cache-control',
      fresh.cacheControl,
      'cache-status',
      fresh.cacheStatus,
      'vary',
      cors.variesByOrigin ? 'Origin, Accept-Encoding' : 'Accept-Encoding',
      'x-content-type-options',
      'nosniff',
    ];
    if (origin !== undefined)
      headers.push('access-control-allow-origin', origin, 'access-control-expose-headers', EXPOSED_HEADERS);
    // No Last-Modified on a 304, as respondStored says why.
    if (!notModified) {
      headers.push('last-modified', new Date(stored.fetchedAt).toUTCString());
      if (encoding !== 'identity') headers.push('content-encoding', encoding);
      headers.push('content-length', String(bodyOf(stored, encoding).length));
    }
    answers[slot] = { freshUntil: stored.freshUntil, age, remaining, origin, headers };
    return headers;
  };

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    stored: StoredResponse,
    status: HitStatus,
    folded: FoldedHit | undefined,
  ) => {
    const at = now();
    countHit(target, status, at, folded);
    const raw = req.rawHeaders;
    const origin = cors.enabled ? cors.allowOrigin(requestHeader(raw, 'origin') ?? null) : undefined;
    const ifNoneMatch = requestHeader(raw, 'if-none-match');
    const notModified = ifNoneMatch !== undefined && etagMatches(ifNoneMatch, stored.etag);
    const encoding = encodingOf(requestHeader(raw, 'accept-encoding'));
    const headers = prepare(stored, status, encoding, notModified, origin, at);
    if (notModified) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else res.end(bodyOf(stored, encoding));
  };

  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || parts.limited) return false;
    const raw = req.url;
    if (raw === undefined || raw.charCodeAt(0) !== 47 /* "/" */) return false;
    const target = targetOf(raw);
    if (!target) return false;
    let stored = fills.freshEntry(target.key, target.context);
    let status: HitStatus = stored ? HIT : REFRESHING;
    stored ??= fills.refillingEntry(target.key, target.context);
    const folded = stored ? undefined : fills.foldedHit(target.key, target.context);
    if (folded) ({ stored, status } = folded);
    if (!stored) return false;
    const ip = clientLimit && clientOf(req);
    if (!clientLimit || !ip) {
      send(req, res, target, stored, status, folded);
      return true;
    }
    clientLimit.refusal(ip).then(
      (waitMs) => {
        if (waitMs === undefined) send(req, res, target, stored, status, folded);
        else void sendWebResponse(parts.tooManyRequests(waitMs, req.headers.origin ?? null), res, req.method);
      },
      () => res.destroy(),
    );
    return true;
  };
}
