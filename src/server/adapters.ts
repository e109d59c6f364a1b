/**
 * The cache endpoint inside other servers: a node:http / Express / Connect middleware, and a
 * Vite plugin that mounts it on the dev and preview servers. Requests that are not the
 * endpoint's (outside its prefix) go to `next()`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin, PreviewServer, ViteDevServer } from 'vite';
import { createCacheHandler, type CacheHandler } from './http/handler.ts';
import { toNodeListener } from '../runtime/node-http.ts';
import type { CacheOptions } from './config/options.ts';

export type NodeMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** Express-style `(req, res, next?)` middleware for a cache handler. */
export function createCacheMiddleware(cache: CacheHandler): NodeMiddleware {
  const listener = toNodeListener(cache.handle);
  return (req, res, next) => {
    if (cache.serveHit(req, res)) return;
    if (cache.owns(new URL(req.url ?? '/', 'http://localhost'))) return listener(req, res);
    if (next) return next();
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ error: { code: 'not_found', message: 'not a route of this endpoint' } }));
  };
}

/**
 * `plugins: [pulseWidgets({ upstream, apiKey: process.env.PULSE_API_KEY, hosts, prefix: '/pulse' })]`
 * serves the endpoint under the prefix of `vite` and `vite preview`. The key stays in the Node
 * process: nothing of it reaches the bundle.
 */
export function pulseWidgetsVitePlugin(options: CacheOptions): Plugin {
  let cache: CacheHandler | undefined;
  const close = async () => {
    const open = cache;
    cache = undefined;
    await open?.close();
  };
  const mount = (server: ViteDevServer | PreviewServer) => {
    cache ??= createCacheHandler(options);
    server.middlewares.use(createCacheMiddleware(cache));
    server.httpServer?.once('close', () => void close());
  };
  return {
    name: 'pulse-widgets-cache',
    configureServer: mount,
    configurePreviewServer: mount,
    closeBundle: close,
  };
}
