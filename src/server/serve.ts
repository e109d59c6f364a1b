/**
 * The standalone server behind `pulse-widgets serve`: the cache endpoint, `/` (a built page or
 * the route list), the board page at `/board/`, and in demo mode the simulator on its own
 * loopback port, reachable only by the cache, with a key that never leaves this process (with
 * `--workers`, the primary runs the simulator and hands its address and key to the workers over
 * IPC).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { demoHistory } from '../history/demo.ts';
import type { HistoryOptions } from '../history/service.ts';
import { DEMO_HOSTS, createUpstreamHandler } from '../simulator/index.ts';
import { createCacheHandler, createLogger, type CacheHandler } from './http/handler.ts';
import { createBoardPage, isBoardPath } from './board-page.ts';
import { createIndexPage } from './index-page.ts';
import { listen, type WebHandler } from '../runtime/node-http.ts';
import type { CacheOptions } from './config/options.ts';
import type { ServeSettings } from './config/settings.ts';
import { createStaticHandler } from './static-files.ts';

export interface RunningEndpoint {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  mode: 'demo' | 'upstream';
  hosts: readonly string[];
  cache: CacheHandler;
  close(): Promise<void>;
}

/** Where the cache fills from: the real service, or the simulator this process started. */
export interface UpstreamTarget {
  url: string;
  apiKey: string;
  mode: 'demo' | 'upstream';
  hosts: string[];
}

/** The upstream of these settings; in demo mode a simulator on a loopback port, stopped by `close`. */
export async function startUpstream(
  settings: ServeSettings,
): Promise<UpstreamTarget & { close(): Promise<void> }> {
  // Demo mode serves each simulated site and its video@ variant (spec 5.4), as the simulator does.
  const hosts = settings.hosts ?? DEMO_HOSTS.flatMap((site) => [site, `video@${site}`]);
  if (settings.upstream !== undefined)
    return {
      url: settings.upstream.href,
      apiKey: settings.apiKey!,
      mode: 'upstream',
      hosts,
      close: async () => {},
    };
  const apiKey = settings.apiKey ?? randomBytes(24).toString('base64url');
  const simulator = await listen(
    createUpstreamHandler({ apiKey, hosts: hosts.filter((host) => !host.startsWith('video@')) }),
    0,
    '127.0.0.1',
  );
  return { url: simulator.url, apiKey, mode: 'demo', hosts, close: simulator.close };
}

/**
 * The endpoint in front of `target`, listening where the settings say. `overrides` are cache
 * options the settings do not carry: the shared tier of a worker, scaled-down times in tests.
 * `metrics` answers `/metrics` instead of this process's registry (a worker: every worker's, summed).
 */
export async function serveEndpoint(
  settings: ServeSettings,
  target: UpstreamTarget,
  logger: Logger,
  overrides: Partial<CacheOptions> = {},
  metrics?: () => Promise<string>,
): Promise<Omit<RunningEndpoint, 'mode' | 'hosts'>> {
  const cache = createCacheHandler({
    upstream: target.url,
    apiKey: target.apiKey,
    hosts: target.hosts,
    prefix: settings.prefix,
    allowedOrigins: settings.allowedOrigins,
    staleWindowMs: settings.staleWindowMs,
    rawDataPersonalFields: settings.rawDataPersonalFields,
    clientLimit: settings.clientLimit,
    newQueryLimit: settings.newQueryLimit,
    newQueryBurst: settings.newQueryBurst,
    newQuerySiteLimit: settings.newQuerySiteLimit,
    queries: settings.queries,
    trustProxy: settings.trustProxy,
    cacheMaxBytes: settings.cacheMaxBytes,
    redisUrl: settings.redisUrl,
    instances: settings.instances,
    history: historyOptions(settings, target),
    fold: settings.fold,
    logger,
    ...overrides,
  });
  const site: WebHandler = settings.staticDir
    ? await createStaticHandler(settings.staticDir)
    : createIndexPage({
        prefix: settings.prefix,
        hosts: target.hosts,
        shapes: () => cache.queryShapes(),
        mode:
          target.mode === 'demo' ? 'Demo mode: data from the built-in simulator' : 'Serving the real service',
      });
  const board = await createBoardPage({ prefix: settings.prefix, hosts: target.hosts });
  const metricsPath = `${settings.prefix}/metrics`;
  const server = await listen(
    async (request) => {
      const url = new URL(request.url);
      if (metrics && url.pathname === metricsPath && request.method === 'GET') {
        return new Response(await metrics(), {
          headers: { 'content-type': cache.registry.contentType, 'cache-control': 'no-store' },
        });
      }
      if (cache.owns(url)) return cache.handle(request);
      return isBoardPath(url.pathname) ? board(request) : site(request);
    },
    settings.port,
    settings.host,
    cache.serveHit,
  );
  return {
    url: server.url,
    cache,
    close: async () => {
      await server.close();
      await cache.close();
    },
  };
}

export async function serve(
  settings: ServeSettings,
  logger: Logger = createLogger(settings.logLevel),
): Promise<RunningEndpoint> {
  const upstream = await startUpstream(settings);
  const endpoint = await serveEndpoint(settings, upstream, logger);
  return {
    ...endpoint,
    mode: upstream.mode,
    hosts: upstream.hosts,
    close: async () => {
      await endpoint.close();
      await upstream.close();
    },
  };
}

/** History in front of `target`: in demo mode backfilled from the simulator and kept in memory unless PULSE_DATA_DIR says otherwise. */
export function historyOptions(settings: ServeSettings, target: UpstreamTarget): HistoryOptions {
  return target.mode === 'demo'
    ? demoHistory(target.hosts, { dataDir: settings.dataDir, timeZones: settings.hostTimeZones })
    : { dataDir: settings.dataDir ?? defaultDataDir(), timeZones: settings.hostTimeZones };
}

/** Where history survives restarts when PULSE_DATA_DIR is unset: the XDG state directory. */
function defaultDataDir(): string {
  return join(process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'pulse-widgets');
}
