/**
 * Runs a Web-standard handler `(Request) => Promise<Response>` on node:http, so the cache
 * endpoint and the simulated upstream are written once against Request/Response and mount
 * anywhere. Request bodies are not read: every route here is GET/HEAD.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { realClock, type Clock } from './clock.ts';

export type WebHandler = (request: Request) => Promise<Response>;

/** What the handler sees as the client address: `x-pulse-client-ip` is set by us, never trusted from outside. */
export const CLIENT_IP_HEADER = 'x-pulse-client-ip';

export function toWebRequest(req: IncomingMessage, signal?: AbortSignal): Request {
  const host = req.headers.host ?? '127.0.0.1';
  const url = new URL(req.url ?? '/', `http://${host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === CLIENT_IP_HEADER || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  headers.set(CLIENT_IP_HEADER, req.socket.remoteAddress ?? '');
  return new Request(url, { method: req.method, headers, signal });
}

export async function sendWebResponse(
  response: Response,
  res: ServerResponse,
  method?: string,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const setCookies = response.headers.getSetCookie();
  if (setCookies.length > 0) headers['set-cookie'] = setCookies;
  res.writeHead(response.status, headers);
  if (!response.body || method === 'HEAD') {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  body.on('error', () => res.destroy());
  body.pipe(res);
}

/**
 * Answers a request itself and returns true, or returns false having done nothing: the cache's
 * hit path, which serves fresh hits without building Web objects.
 */
export type NodeShortcut = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A node:http / Express-style `(req, res)` listener for a Web handler, tried after `shortcut` if one is given. */
export function toNodeListener(handler: WebHandler, shortcut?: NodeShortcut) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (shortcut?.(req, res)) return;
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    handler(toWebRequest(req, abort.signal))
      .then((response) => sendWebResponse(response, res, req.method))
      .catch(() => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ error: { code: 'internal', message: 'internal error' } }));
        } else res.destroy();
      });
  };
}

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Stops accepting connections and resolves once the server is closed: answers in progress
   * finish first (their connections close after them), for at most `drainMs`, after which what
   * is still open is cut. A restart under a load balancer then loses no answer.
   */
  close(): Promise<void>;
}

export interface ListenOptions {
  /** How long `close()` lets answers in progress finish before it cuts their connections (default 5000). */
  drainMs?: number;
  /** Where the drain's deadline is timed (default: the real clock). */
  clock?: Clock;
}

/** Listens on `host:port` (port 0 picks a free one) and resolves once listening. */
export function listen(
  handler: WebHandler,
  port = 0,
  host = '127.0.0.1',
  shortcut?: NodeShortcut,
  { drainMs = 5000, clock = realClock }: ListenOptions = {},
): Promise<RunningServer> {
  const listener = toNodeListener(handler, shortcut);
  // Answers not yet sent when closing starts say `Connection: close`: their clients do not keep
  // the connection open, which would hold the close until the client's own idle timeout.
  const inProgress = new Set<ServerResponse>();
  let closing = false;
  const server = createServer((req, res) => {
    if (closing) res.setHeader('connection', 'close');
    inProgress.add(res);
    res.once('close', () => inProgress.delete(res));
    listener(req, res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            for (const res of inProgress) if (!res.headersSent) res.setHeader('connection', 'close');
            const cut = clock.setTimeout(() => server.closeAllConnections(), drainMs);
            // Idle keep-alive connections close now, busy ones once their answer is sent.
            server.close(() => {
              clock.clearTimeout(cut);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
