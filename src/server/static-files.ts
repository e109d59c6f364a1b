/**
 * Serves a built directory (the demo page) at `/`: GET/HEAD only, no directory listings, no way
 * out of the root (decoded, normalised, then checked again after resolving symlinks), content
 * types from the extension, and caching that suits a build: HTML revalidated every time,
 * fingerprinted assets (`name-3f9a1c2b.js`) kept a year, anything else five minutes.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { Readable } from 'node:stream';
import { errorResponse } from './http/errors.ts';
import type { WebHandler } from '../runtime/node-http.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};
const FINGERPRINTED = /[.-][A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

function cacheControl(file: string): string {
  if (file.endsWith('.html')) return 'no-cache';
  return FINGERPRINTED.test(file) ? 'public, max-age=31536000, immutable' : 'public, max-age=300';
}

/** The file under `root` a URL path names, or undefined for anything that could leave it. */
async function resolveFile(root: string, pathname: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const relative = normalize(decoded).replace(/^(\.\.(\/|$))+/, '');
  if (
    relative.split('/').some((segment) => segment === '..' || (segment.startsWith('.') && segment.length > 1))
  )
    return undefined;
  let file = join(root, relative);
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const real = await realpath(file);
    if (!real.startsWith(root + sep)) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

export async function createStaticHandler(directory: string): Promise<WebHandler> {
  const root = await realpath(directory);
  if (!(await stat(root)).isDirectory()) throw new Error(`${directory} is not a directory`);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(405, 'method_not_allowed', `${request.method} is not allowed: use GET`, {
        headers: { allow: 'GET, HEAD' },
      });
    }
    const { pathname } = new URL(request.url);
    const file = await resolveFile(root, pathname);
    if (!file) return errorResponse(404, 'not_found', `${pathname} was not found`);
    const info = await stat(file);
    const etag = `W/"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
    const headers = new Headers({
      'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'cache-control': cacheControl(file),
      etag,
      'last-modified': info.mtime.toUTCString(),
      'x-content-type-options': 'nosniff',
    });
    if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
    headers.set('content-length', String(info.size));
    const body =
      request.method === 'HEAD'
        ? null
        : (Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>);
    return new Response(body, { status: 200, headers });
  };
}
