/**
 * The board page at `/board/`: the built files of src/board (dist/board), which sites this
 * endpoint serves at `/board/sites.json`, and every response under the strict policy of the CMS
 * example (own origin only, nothing inline), the form's GET to itself aside.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorResponse } from './http/errors.ts';
import type { WebHandler } from '../runtime/node-http.ts';
import { createStaticHandler } from './static-files.ts';

export const BOARD_CSP =
  "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * Where the built board is, relative to this module: run from the sources (src/server →
 * dist/board), beside it in a compiled package (dist/server.js → dist/board) or one level up
 * (dist/server/… → dist/board). A build has an assets folder; the sources (src/board) do not.
 */
const CANDIDATES = ['../../dist/board/', './board/', '../board/'];

export function findBoardDirectory(): string | undefined {
  for (const candidate of CANDIDATES) {
    const directory = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${directory}index.html`) && existsSync(`${directory}assets`)) return directory;
  }
  return undefined;
}

export function isBoardPath(pathname: string): boolean {
  return pathname === '/board' || pathname.startsWith('/board/');
}

/** The `/board/` handler, or a clear 404 when the board was not built (`directory: false` says so for tests). */
export async function createBoardPage(options: {
  prefix: string;
  hosts: readonly string[];
  directory?: string | false;
}): Promise<WebHandler> {
  const directory = options.directory ?? findBoardDirectory();
  const files = directory ? await createStaticHandler(directory) : undefined;
  const served = JSON.stringify({
    prefix: options.prefix,
    hosts: options.hosts.filter((host) => !host.startsWith('video@')),
  });
  const respond = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname === '/board')
      return new Response(null, { status: 308, headers: { location: `/board/${url.search}` } });
    if (url.pathname === '/board/sites.json') {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return errorResponse(405, 'method_not_allowed', `${request.method} is not allowed: use GET`, {
          headers: { allow: 'GET, HEAD' },
        });
      return new Response(request.method === 'HEAD' ? null : served, {
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' },
      });
    }
    if (!files)
      return errorResponse(404, 'not_found', 'The board page is not built: run npm run build:board');
    return files(new Request(new URL(url.pathname.slice('/board'.length) + url.search, url), request));
  };
  return async (request) => {
    const response = await respond(request);
    response.headers.set('content-security-policy', BOARD_CSP);
    response.headers.set('x-content-type-options', 'nosniff');
    response.headers.set('referrer-policy', 'no-referrer');
    return response;
  };
}
