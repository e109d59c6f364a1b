/**
 * A Web handler serving the files under one folder (a Storybook build, an example page), for
 * the smoke test and the CDN/CSP test. Loopback testing only: no caching, no directory listing.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

export interface StaticSiteOptions {
  /** Extra headers on every file response (a Content-Security-Policy, for one). */
  headers?: Record<string, string>;
}

export function staticSite(root: string, options: StaticSiteOptions = {}): (request: Request) => Promise<Response> {
  const base = normalize(root + sep);
  return async (request) => {
    const pathname = decodeURIComponent(new URL(request.url).pathname);
    const file = normalize(join(base, pathname.endsWith('/') ? `${pathname}index.html` : pathname));
    if (!file.startsWith(base)) return new Response('forbidden', { status: 403 });
    const found = await stat(file).catch(() => undefined);
    if (!found?.isFile()) return new Response('not found', { status: 404 });
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    return new Response(await readFile(file), { headers: { 'content-type': type, ...options.headers } });
  };
}
