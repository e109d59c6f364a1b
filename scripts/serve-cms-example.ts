/**
 * Serves examples/cms/ the way a CMS site would: the page and its style sheet, the CDN module
 * under /cdn/ (dist/cdn, built by `npm run build:cdn`) and the cache endpoint under /live/, all
 * from one origin, every response carrying a strict Content-Security-Policy. The cache endpoint
 * runs in demo mode: the simulator on its own loopback port, behind a key made up here.
 *
 *   npm run build:cdn && node --import tsx scripts/serve-cms-example.ts   # prints the address
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  createCacheHandler,
  createLogger,
  createStaticHandler,
  listen,
  type RunningServer,
  type WebHandler,
} from '../src/server/index.ts';
import { createUpstreamHandler, DEMO_HOSTS } from '../src/simulator/index.ts';

/** What the example page is served with: only this origin, nothing inline, no plugins. */
export const STRICT_CSP =
  "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors 'none'";

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface CmsExampleOptions {
  /** Where the browser sends its violation reports (appended to the policy as report-uri). */
  reportUri?: string;
}

export async function startCmsExample(port = 0, options: CmsExampleOptions = {}): Promise<RunningServer> {
  const policy = options.reportUri ? `${STRICT_CSP}; report-uri ${options.reportUri}` : STRICT_CSP;
  const apiKey = randomUUID();
  const simulator = await listen(createUpstreamHandler({ apiKey }));
  const cache = createCacheHandler({
    upstream: simulator.url,
    apiKey,
    hosts: DEMO_HOSTS,
    logger: createLogger('silent'),
  });
  const page = await createStaticHandler(`${ROOT}examples/cms`);
  const cdn = await createStaticHandler(`${ROOT}dist/cdn`);
  const route: WebHandler = (request) => {
    const url = new URL(request.url);
    if (cache.owns(url)) return cache.handle(request);
    if (url.pathname.startsWith('/cdn/'))
      return cdn(new Request(new URL(url.pathname.slice('/cdn'.length), url), request));
    if (url.pathname === '/favicon.ico') return Promise.resolve(new Response(null, { status: 204 }));
    return page(request);
  };
  const server = await listen(async (request) => {
    const response = await route(request);
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', policy);
    return new Response(response.body, { status: response.status, headers });
  }, port);
  return {
    ...server,
    close: async () => {
      await server.close();
      await cache.close();
      await simulator.close();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const running = await startCmsExample(Number(process.env.PORT ?? 8081));
  console.log(`CMS example under a strict CSP: ${running.url}/`);
}
