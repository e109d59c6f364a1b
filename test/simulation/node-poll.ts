/**
 * A page's poll as `listen` (src/runtime/node-http.ts) hands it to the cache: the node:http hit
 * path first, which answers a plain fresh hit (or one whose refill is in flight) in production,
 * and the Web handler for everything else. The request and the response here are the few fields
 * the hit path reads and writes, so the invariants see the answers readers really get, and a hit
 * costs what it costs behind `pulse-widgets serve`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CacheHandler } from '../../src/server/http/handler.ts';

export interface PollAnswer {
  status: number;
  /** Header names in lower case. */
  headers: ReadonlyMap<string, string>;
  /** The bytes sent: on the hit path, the stored answer's own, the same object for every poll of it. */
  body: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** The body as text. */
export const textOf = (answer: PollAnswer): string =>
  Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength).toString();

/**
 * `path` asked of `cache` by a reader at `address`. `request` is the same poll as a Web Request
 * (the address in CLIENT_IP_HEADER, as node-http puts it), for the Web handler.
 */
export async function pollAsNodeHttp(
  cache: CacheHandler,
  path: string,
  address: string,
  request: Request,
): Promise<PollAnswer> {
  let answer: PollAnswer | undefined;
  let status = 0;
  let headers = new Map<string, string>();
  const req = { method: 'GET', url: path, rawHeaders: [], headers: {}, socket: { remoteAddress: address } };
  const res = {
    writeHead(code: number, lines: readonly (string | number)[]) {
      status = code;
      headers = new Map();
      for (let index = 0; index < lines.length; index += 2)
        headers.set(String(lines[index]).toLowerCase(), String(lines[index + 1]));
    },
    end(body?: Uint8Array) {
      answer = { status, headers, body: body ?? EMPTY };
    },
  };
  if (cache.serveHit(req as unknown as IncomingMessage, res as unknown as ServerResponse)) {
    // Without a per-address limit (the simulation sets none) the hit path answers at once.
    if (!answer) throw new Error(`the hit path took ${path} and did not answer it at once`);
    return answer;
  }
  const response = await cache.handle(request);
  return {
    status: response.status,
    headers: new Map(response.headers),
    body: new Uint8Array(await response.arrayBuffer()),
  };
}
