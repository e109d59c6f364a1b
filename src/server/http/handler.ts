/**
 * The cache endpoint's composition root: `createCacheHandler` builds its parts from the options
 * (upstream client, shared tier, budget, cache, history, limits, metrics) and hands them to the
 * router (router.ts), which answers Web requests, and to the node:http hit path (hit-path.ts).
 */
import pino, { type Logger } from 'pino';
import { canonicalQuery, routes, type QuickstatsResponse } from '../../api/index.ts';
import { HistoryService } from '../../history/service.ts';
import type { WebHandler } from '../../runtime/node-http.ts';
import { HostBudget, WindowSlots } from '../budget/host-budget.ts';
import { SharedSlots } from '../budget/shared-slots.ts';
import { FillCache } from '../cache/fill-cache.ts';
import { resolveOptions, type CacheOptions } from '../config/options.ts';
import { createMetrics } from '../metrics.ts';
import { RedisTier } from '../tier/redis-tier.ts';
import { TierTime } from '../tier/tier-time.ts';
import { UpstreamClient } from '../upstream.ts';
import { ClientLimit } from './client-limit.ts';
import { Cors } from './cors.ts';
import { createHitPath, type HitPath } from './hit-path.ts';
import { NewQueryMeter } from './new-query-meter.ts';
import { NewQuerySiteCap } from './new-query-site-cap.ts';
import { createRouter } from './router.ts';

export interface CacheHandler {
  /** The handler; bound, so it can be passed around (`Deno.serve(cache.handle)`). */
  handle: WebHandler;
  /**
   * node:http only: answers a plain fresh hit straight from the stored buffers and returns true,
   * or returns false (having done nothing) when `handle` must answer.
   */
  serveHit: HitPath;
  /**
   * The reader's address as the per-IP limit counts it: the peer, or with `trustProxy` the
   * address a trusted proxy forwarded (client-address.ts).
   */
  clientAddress(request: Request): string | undefined;
  /** The shapes of the valid queries this process was asked, to start a `queries` list from (the `/` page shows them). */
  queryShapes(): string[];
  /** Whether a URL is one of this endpoint's (under its prefix); adapters pass others on. */
  owns(url: URL): boolean;
  /** Stops refresh timers, drops queued fills, closes upstream connections and the Redis connection. */
  close(): Promise<void>;
  /** The Prometheus registry behind `/metrics`. */
  registry: ReturnType<typeof createMetrics>['registry'];
  /** The history recorder and `/history/v1/`. */
  history: HistoryService;
}

/** The default logger: JSON lines, and the key censored should it ever be handed to a log call. */
export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { name: 'pulse-widgets' },
    redact: {
      paths: ['apiKey', '*.apiKey', 'headers["x-svc-ak"]', '*.headers["x-svc-ak"]'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export function createCacheHandler(cacheOptions: CacheOptions): CacheHandler {
  const resolved = resolveOptions(cacheOptions);
  const logger = resolved.logger ?? createLogger();
  // Read at scrape time only, once `fills` exists.
  const metrics = createMetrics({ bytes: () => fills.bytes, entries: () => fills.size });
  // Sharing a tier, every part keeps time on the tier's clock, as every other instance does.
  const tierTime =
    resolved.followTierClock && (resolved.redisUrl !== undefined || resolved.sharedTier !== undefined)
      ? new TierTime(resolved.clock, logger, (offsetMs) => metrics.tierClockOffset.set(offsetMs))
      : undefined;
  const options = tierTime ? { ...resolved, clock: tierTime, now: tierTime.now } : resolved;
  const cors = new Cors(options.allowedOrigins);
  const clientLimit =
    options.clientLimit > 0 ? new ClientLimit(options.clientLimit, options.clientLimitWindowMs) : undefined;
  const newQueries =
    options.newQueryLimit > 0
      ? new NewQueryMeter(options.newQueryLimit, options.newQueryBurst, options.clock)
      : undefined;
  const upstream = new UpstreamClient({
    base: options.upstream,
    apiKey: options.apiKey,
    liveTimeoutMs: options.upstreamTimeoutMs,
    rawDataTimeoutMs: options.rawDataTimeoutMs,
    maxBodyBytes: options.maxBodyBytes,
    rawDataMaxBytes: options.rawDataMaxBytes,
    logger,
    clock: options.clock,
    transport: options.upstreamTransport,
    onCall: (route, status, seconds) => {
      metrics.upstreamCalls.inc({ route, status });
      metrics.upstreamSeconds.observe({ route }, seconds);
      if (status === 'invalid') metrics.invalidBodies.inc({ route });
    },
    onDropped: (route, entries, fields) => {
      if (entries > 0) metrics.droppedValues.inc({ route, what: 'entry' }, entries);
      if (fields > 0) metrics.droppedValues.inc({ route, what: 'field' }, fields);
    },
  });
  const shared =
    options.redisUrl === undefined
      ? options.sharedTier
      : new RedisTier({
          url: options.redisUrl,
          prefix: options.redisPrefix,
          timeoutMs: options.redisTimeoutMs,
          logger,
          onOnline: (online) => metrics.sharedTierUp.set(online ? 1 : 0),
        });
  if (shared) metrics.sharedTierUp.set(shared.online ? 1 : 0);
  if (shared) tierTime?.follow(shared, [...options.hosts][0]!);
  // A cold dashboard may take a second's burst of what a tick's windows carry (host-budget.ts).
  const burst = options.budgetFills * Math.max(1, Math.floor(options.liveTtlMs / options.budgetWindowMs));
  const slots = shared
    ? new SharedSlots(
        shared,
        options.budgetFills,
        options.budgetWindowMs,
        burst,
        options.instances,
        logger,
        tierTime,
      )
    : new WindowSlots(options.budgetFills, options.budgetWindowMs, burst);
  // New queries take only what the refresh plan leaves of each window (read once `fills` exists).
  const budget = new HostBudget(slots, options.clock, (site, now) => fills.newQueryShare(site, now));
  const fills = new FillCache({ options, upstream, budget, metrics, logger, shared });

  // History samples quickstats with every platform, through the fill cache (a fresh fill that covers it is reused).
  // Without `history` options nothing is recorded: the route answers what a shared store holds.
  const history = new HistoryService({
    options: cacheOptions.history ?? { record: false },
    hosts: [...options.hosts],
    clock: options.clock,
    logger,
    redis:
      options.redisUrl === undefined
        ? undefined
        : { url: options.redisUrl, prefix: options.redisPrefix, timeoutMs: options.redisTimeoutMs },
    retryMs: options.liveTtlMs,
    onMinute: (host, outcome) => metrics.historySamples.inc({ host, outcome }),
    quickstats: async (host) => {
      const query = canonicalQuery({ host, all_platforms: 1 });
      const lookup = await fills.lookup(`${routes.quickstats.path}?${query}`, {
        route: 'quickstats',
        query,
        host,
        passive: true,
      });
      if (lookup.kind !== 'stored') return undefined;
      return {
        stats: (JSON.parse(lookup.stored.identity.toString()) as QuickstatsResponse).data.stats,
        fetchedAt: lookup.stored.fetchedAt,
      };
    },
  });

  // Each instance sharing the budget counts its own new queries: its share of the site's cap.
  const siteNewQueries =
    options.newQuerySiteLimit > 0
      ? new NewQuerySiteCap(
          options.newQuerySiteLimit / (shared ? options.instances : 1),
          options.maxWaitMs,
          options.liveTtlMs,
          options.clock,
        )
      : undefined;
  const router = createRouter({
    options,
    fills,
    history,
    metrics,
    cors,
    logger,
    clientLimit,
    newQueries,
    siteNewQueries,
  });

  const serveHit = createHitPath({
    prefix: options.prefix,
    hosts: options.hosts,
    fills,
    cors,
    // A custom `clientIp` reads a Web Request: with one, limited requests all take the Web path.
    clientLimit: cacheOptions.clientIp === undefined ? clientLimit : undefined,
    trustProxy: options.trustProxy,
    limited: clientLimit !== undefined && cacheOptions.clientIp !== undefined,
    hits: metrics.hits,
    staleServes: metrics.staleServes,
    folded: metrics.folded,
    now: options.now,
    tooManyRequests: (waitMs, origin) => router.tooManyRequests(waitMs, cors.headers(origin)),
  });

  return {
    handle: router.handle,
    serveHit,
    clientAddress: router.clientAddress,
    queryShapes: router.queryShapes,
    owns: router.owns,
    registry: metrics.registry,
    history,
    close: async () => {
      tierTime?.close();
      router.close();
      await history.close();
      await fills.close();
    },
  };
}
