/**
 * The standalone server behind `pulse-widgets serve`: the cache endpoint, `/` (a built page or
 * the route list), and in demo mode the simulator on its own loopback port, reachable only by
 * the cache, with a key that never leaves this process.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { DEMO_HOSTS, createUpstreamHandler } from '../simulator/index.ts';
import { createCacheHandler, createLogger, type CacheHandler } from './handler.ts';
import { createIndexPage } from './index-page.ts';
import { listen, type WebHandler } from './node-http.ts';
import type { ServeSettings } from './settings.ts';
import { createStaticHandler } from './static-files.ts';

export interface RunningEndpoint {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  mode: 'demo' | 'upstream';
  hosts: readonly string[];
  cache: CacheHandler;
  close(): Promise<void>;
}

export async function serve(settings: ServeSettings, logger: Logger = createLogger(settings.logLevel)): Promise<RunningEndpoint> {
  const demo = settings.upstream === undefined;
  // Demo mode serves each simulated site and its video@ variant (spec 5.4), as the simulator does.
  const hosts = settings.hosts ?? DEMO_HOSTS.flatMap((site) => [site, `video@${site}`]);
  let upstream: string;
  let apiKey: string;
  let closeSimulator = async () => {};
  if (settings.upstream === undefined) {
    apiKey = settings.apiKey ?? randomBytes(24).toString('base64url');
    const simulator = await listen(createUpstreamHandler({ apiKey, hosts: hosts.filter((host) => !host.startsWith('video@')) }), 0, '127.0.0.1');
    upstream = simulator.url;
    closeSimulator = simulator.close;
  } else {
    upstream = settings.upstream.href;
    apiKey = settings.apiKey!;
  }
  const cache = createCacheHandler({
    upstream,
    apiKey,
    hosts,
    prefix: settings.prefix,
    allowedOrigins: settings.allowedOrigins,
    staleWindowMs: settings.staleWindowMs,
    rawDataPersonalFields: settings.rawDataPersonalFields,
    clientLimit: settings.clientLimit,
    cacheMaxBytes: settings.cacheMaxBytes,
    redisUrl: settings.redisUrl,
    instances: settings.instances,
    fold: settings.fold,
    logger,
  });
  const site: WebHandler = settings.staticDir
    ? await createStaticHandler(settings.staticDir)
    : createIndexPage({ prefix: settings.prefix, hosts, mode: demo ? 'Demo mode: data from the built-in simulator' : 'Serving the real service' });
  const server = await listen((request) => (cache.owns(new URL(request.url)) ? cache.handle(request) : site(request)), settings.port, settings.host);
  return {
    url: server.url,
    mode: demo ? 'demo' : 'upstream',
    hosts,
    cache,
    close: async () => {
      await server.close();
      await cache.close();
      await closeSimulator();
    },
  };
}
