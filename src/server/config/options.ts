/**
 * What the cache endpoint can be told, its defaults, and `resolveOptions`, which refuses a
 * setting that would break a promise (a timeout not shorter than the TTL; the checks of single
 * settings, such as a key that could inject a header, are checks.ts's).
 */
import type { Logger } from 'pino';
import { LIVE_TTL_MS, RAW_DATA_TTL_MS } from '../../api/index.ts';
import type { HistoryOptions } from '../../history/service.ts';
import { TRUST_NO_PROXY, type TrustProxy } from '../http/client-address.ts';
import {
  checkApiKey,
  checkHosts,
  checkOrigins,
  checkPrefix,
  checkRedisUrl,
  checkTrustProxy,
  upstreamUrl,
} from './checks.ts';
import { clockWithNow, realClock, type Clock } from '../../runtime/clock.ts';
import { CLIENT_IP_HEADER } from '../../runtime/node-http.ts';
import { parseQueryShapes, type QueryShapes } from '../http/query-shapes.ts';
import type { SharedTier } from '../tier/shared-tier.ts';
import type { BodyEncoder } from '../../runtime/stored-response.ts';
import type { UpstreamTransport } from '../upstream.ts';
import { ConfigError } from '../../runtime/config-error.ts';

export interface CacheOptions {
  /** Base URL of the upstream service, e.g. `https://api.example.com`. */
  upstream: string | URL;
  /** Sent upstream in `X-SVC-AK` and nowhere else. */
  apiKey: string;
  /** Site IDs (`host` values) this endpoint may serve; any other is a 403. */
  hosts: readonly string[];
  /** Mount point of every route, e.g. `/pulse`; default none. */
  prefix?: string;
  /** Origins allowed to read responses cross-origin (`*` for any); default none: same-origin only. */
  allowedOrigins?: readonly string[];
  /** Freshness of live routes, and the wall-clock grid refreshes are aligned to (3000). */
  liveTtlMs?: number;
  /** Freshness of raw data (60000). */
  rawDataTtlMs?: number;
  /** How long past its freshness a response may still be served when the upstream fails (5 min). */
  staleWindowMs?: number;
  /** Upstream timeout of live routes; must be shorter than `liveTtlMs` (2000). */
  upstreamTimeoutMs?: number;
  /** Upstream timeout of raw data; must be shorter than `rawDataTtlMs` (20000). */
  rawDataTimeoutMs?: number;
  /** Largest upstream body accepted on live routes (1 MiB). */
  maxBodyBytes?: number;
  /** Largest upstream body accepted for raw data (8 MiB). */
  rawDataMaxBytes?: number;
  /** Entries kept at most (5000). */
  cacheMaxEntries?: number;
  /** Bytes kept at most, all stored encodings counted (64 MiB). */
  cacheMaxBytes?: number;
  /** Upstream fills per host per budget window (3). */
  budgetFills?: number;
  /** Length of a budget window (1000): 3 per 1 s gives at most 183 in any sliding minute. */
  budgetWindowMs?: number;
  /** Host cooldown after a 429 or `X-RateLimit-Remaining: 0` that came without `Retry-After` (10000). */
  cooldownMs?: number;
  /** First per-key backoff after a failed fill, doubled per failure (1000) … */
  backoffBaseMs?: number;
  /** … up to this (30000). */
  backoffMaxMs?: number;
  /** How long a request with nothing servable waits for its fill before a 503 (5000). */
  maxWaitMs?: number;
  /**
   * How long a request finding only a copy older than two intervals waits for a fresh fill
   * before it is answered with that copy (1000), so a widget's first paint is not minutes old.
   */
  firstPaintWaitMs?: number;
  /**
   * Query folding (default true): narrower queries of one fold group are derived from one fill
   * of their union (docs/upstream-assumptions.md, "Query folding"). False: one fill per query.
   */
  fold?: boolean;
  /** Requests per client IP per `clientLimitWindowMs` (60000 per minute); 0 turns the limit off. */
  clientLimit?: number;
  clientLimitWindowMs?: number;
  /**
   * Upstream calls a minute each client address may start for queries nobody polls (6), after
   * a burst of `newQueryBurst` (30); past them it is answered 429 with Retry-After. Hits, and
   * queries someone already polls, are never counted. 0 turns the meter off.
   */
  newQueryLimit?: number;
  newQueryBurst?: number;
  /**
   * Upstream calls all clients together may start for one site's queries nobody polls, in any
   * sliding minute (60 of the 183; new-query-site-cap.ts), divided between the instances that
   * share a budget; past it 429 with Retry-After. 0 turns the cap off.
   */
  newQuerySiteLimit?: number;
  /**
   * Pins the query shapes answered (query-shapes.ts; docs/cache-endpoint.md, "Public endpoint"):
   * `toppages?limit&section=Politics|Tech quickstats`. Others get 403 query_not_allowed. Unset: any valid query.
   */
  queries?: string;
  /**
   * The address of the peer that connected (a proxy, or the reader); default: the address
   * node-http puts in `x-pulse-client-ip`. The per-IP limit counts the reader found from it
   * through `trustProxy`.
   */
  clientIp?: (request: Request) => string | undefined;
  /**
   * Which proxies to believe about the reader's address, as Express's `trust proxy`: a hop count
   * (0, the default, believes none), or addresses and CIDR ranges (IPv4 and IPv6; also
   * `loopback`, `linklocal`, `uniquelocal`), as an array or one comma-separated string. The
   * per-IP limit then counts the reader named by `X-Forwarded-For` (or `Forwarded`) from those
   * proxies, and ignores the headers from any other peer.
   */
  trustProxy?: number | string | readonly string[];
  /**
   * Redis URL of the shared tier (`redis://host:6379`, `rediss://` for TLS): instances on one
   * Redis share entries, a fill lease per key and the per-host budget. Unset: this process alone.
   */
  redisUrl?: string;
  /** Namespace of the shared tier's keys ('pulse-widgets:'): one per deployment sharing a Redis. */
  redisPrefix?: string;
  /** Longest wait for one Redis command before acting alone (250). */
  redisTimeoutMs?: number;
  /**
   * Shares entries, leases and the budget through this instead of Redis: how the workers of
   * `pulse-widgets serve --workers` share through their primary. `redisUrl` wins when both are set.
   */
  sharedTier?: SharedTier;
  /** How calls reach the upstream (default: undici over the network); the simulation answers in process. */
  upstreamTransport?: UpstreamTransport;
  /** How stored bodies are compressed (default: gzip 6 and brotli 5 on libuv's pool); the simulation's is synchronous. */
  encodeBody?: BodyEncoder;
  /** How many instances share the budget: while Redis is unreachable each one keeps to budget / instances (3). */
  instances?: number;
  /** Keep `user_email` and `user_id` in raw data (default false: stripped). */
  rawDataPersonalFields?: boolean;
  /**
   * The history recorder and `/history/v1/`: where samples are kept, host time zones
   * (docs/cache-endpoint.md). Unset: nothing is recorded (`pulse-widgets serve` always sets it).
   */
  history?: HistoryOptions;
  /** pino logger; default: JSON lines on stdout at info level. */
  logger?: Logger;
  /**
   * Time and timers of every part (default: the real clock). Tests and the simulation inject a
   * virtual one (test/simulation/virtual-clock.ts).
   */
  clock?: Clock;
  /**
   * Sharing a tier (Redis, `--workers`), keep time on the tier's clock, as every instance does
   * (default true; tier/tier-time.ts). False keeps `clock` as given: a test moving a virtual
   * clock beside a real Redis.
   */
  followTierClock?: boolean;
  /** Wall clock in ms alone, with real timers (the older form of `clock`). */
  now?: () => number;
}

export type ResolvedOptions = Required<
  Omit<
    CacheOptions,
    | 'upstream'
    | 'logger'
    | 'allowedOrigins'
    | 'hosts'
    | 'redisUrl'
    | 'history'
    | 'sharedTier'
    | 'upstreamTransport'
    | 'encodeBody'
    | 'trustProxy'
    | 'queries'
  >
> & {
  encodeBody?: BodyEncoder;
  /** Unset: every valid query is answered. */
  queries?: QueryShapes;
  trustProxy: TrustProxy;
  redisUrl?: string;
  sharedTier?: SharedTier;
  upstreamTransport?: UpstreamTransport;
  upstream: URL;
  hosts: ReadonlySet<string>;
  allowedOrigins: ReadonlySet<string>;
  logger?: Logger;
};

export const DEFAULTS = {
  liveTtlMs: LIVE_TTL_MS,
  rawDataTtlMs: RAW_DATA_TTL_MS,
  staleWindowMs: 5 * 60_000,
  upstreamTimeoutMs: 2000,
  rawDataTimeoutMs: 20_000,
  maxBodyBytes: 1 << 20,
  rawDataMaxBytes: 8 << 20,
  cacheMaxEntries: 5000,
  cacheMaxBytes: 64 << 20,
  budgetFills: 3,
  budgetWindowMs: 1000,
  cooldownMs: 10_000,
  backoffBaseMs: 1000,
  backoffMaxMs: 30_000,
  maxWaitMs: 5000,
  firstPaintWaitMs: 1000,
  // 500 viewers behind one NAT × 4 distinct URLs × 21 ticks in a minute = 42,000; room to spare.
  clientLimit: 60_000,
  clientLimitWindowMs: 60_000,
  // A dashboard of 30 queries opening on a cold cache, then a few new ones a minute.
  newQueryLimit: 6,
  newQueryBurst: 30,
  // Two cold dashboards' first fills; the polled queries keep 123 of the site's 183 a minute.
  newQuerySiteLimit: 60,
  redisTimeoutMs: 250,
  // Three instances alone on 1 fill a second each still make at most 183 calls a minute.
  instances: 3,
} as const;

function checkQueries(text: string): QueryShapes {
  const parsed = parseQueryShapes(text);
  if ('error' in parsed) throw new ConfigError(parsed.error);
  return parsed.shapes;
}

function positive(name: string, value: number, allowZero = false): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
    throw new ConfigError(
      `${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, not ${value}`,
    );
  return value;
}

export function resolveOptions(options: CacheOptions): ResolvedOptions {
  const clock = options.clock ?? (options.now ? clockWithNow(options.now) : realClock);
  const numbers = { ...DEFAULTS } as Record<keyof typeof DEFAULTS, number>;
  for (const name of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = options[name];
    if (value !== undefined)
      numbers[name] = positive(
        name,
        value,
        name === 'clientLimit' ||
          name === 'newQueryLimit' ||
          name === 'newQuerySiteLimit' ||
          name === 'staleWindowMs',
      );
  }
  if (numbers.upstreamTimeoutMs >= numbers.liveTtlMs)
    throw new ConfigError(
      'upstreamTimeoutMs must be shorter than liveTtlMs, so a slow upstream cannot hold a key past its TTL',
    );
  if (numbers.rawDataTimeoutMs >= numbers.rawDataTtlMs)
    throw new ConfigError('rawDataTimeoutMs must be shorter than rawDataTtlMs');
  if (!Number.isInteger(numbers.budgetFills)) throw new ConfigError('budgetFills must be a whole number');
  if (!Number.isInteger(numbers.instances)) throw new ConfigError('instances must be a whole number');
  return {
    ...numbers,
    upstream: upstreamUrl(options.upstream),
    apiKey: checkApiKey(options.apiKey),
    hosts: checkHosts(options.hosts),
    prefix: checkPrefix(options.prefix ?? ''),
    allowedOrigins: checkOrigins(options.allowedOrigins ?? []),
    clientIp: options.clientIp ?? ((request) => request.headers.get(CLIENT_IP_HEADER) || undefined),
    trustProxy: options.trustProxy === undefined ? TRUST_NO_PROXY : checkTrustProxy(options.trustProxy),
    rawDataPersonalFields: options.rawDataPersonalFields ?? false,
    fold: options.fold ?? true,
    followTierClock: options.followTierClock ?? true,
    redisUrl: options.redisUrl === undefined ? undefined : checkRedisUrl(options.redisUrl),
    queries: options.queries === undefined ? undefined : checkQueries(options.queries),
    redisPrefix: options.redisPrefix ?? 'pulse-widgets:',
    sharedTier: options.sharedTier,
    upstreamTransport: options.upstreamTransport,
    encodeBody: options.encodeBody,
    logger: options.logger,
    clock,
    now: clock.now,
  };
}
