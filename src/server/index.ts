/** The key-holding cache endpoint (Node only). */
export { createCacheHandler, createLogger, type CacheHandler } from './http/handler.ts';
export { createCacheMiddleware, pulseWidgetsVitePlugin, type NodeMiddleware } from './adapters.ts';
export { ConfigError } from '../runtime/config-error.ts';
export { DEFAULTS, type CacheOptions } from './config/options.ts';
export {
  CLIENT_IP_HEADER,
  listen,
  toNodeListener,
  type WebHandler,
  type RunningServer,
} from '../runtime/node-http.ts';
export { createStaticHandler } from './static-files.ts';
export { serve, type RunningEndpoint } from './serve.ts';
export { readSettings, type ServeSettings } from './config/settings.ts';
export type { Clock, TimerHandle } from '../runtime/clock.ts';
export type { HistoryOptions } from '../history/service.ts';
export type { HistoryStore, Baseline } from '../history/store.ts';
export { MemoryStore } from '../history/store.ts';
export { FileStore } from '../history/file-store.ts';
