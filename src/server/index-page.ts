/**
 * What `/` shows when no static directory is configured: the routes, with one example URL each
 * for the first allowed host, so a fresh `npm start` has something to click.
 */
import { realClock, type Clock } from '../runtime/clock.ts';
import { HISTORY_PATH, ROUTE_NAMES, routes, type RouteName } from '../api/index.ts';
import { errorResponse } from './http/errors.ts';
import type { WebHandler } from '../runtime/node-http.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function exampleQuery(name: RouteName, host: string, today: Date): string {
  const day = (offset: number) => new Date(today.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  const extra: Record<RouteName, string> = {
    toppages: '&limit=10',
    summary: '&keys=referrer,new',
    referrers: '&limit=10',
    top_geo: '&limit=10',
    quickstats: '',
    raw_data: `&start=${day(-7)}&end=${day(0)}&tz=UTC&limit=50`,
  };
  return `?host=${encodeURIComponent(host)}${extra[name]}`;
}

/**
 * `shapes`: the query shapes this process has been asked so far, listed as a `PULSE_QUERIES`
 * value to start pinning from (docs/cache-endpoint.md, "Public endpoint").
 */
export function createIndexPage(options: {
  prefix: string;
  hosts: readonly string[];
  mode: string;
  clock?: Clock;
  shapes?: () => readonly string[];
}): WebHandler {
  const clock = options.clock ?? realClock;
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname !== '/' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return errorResponse(404, 'not_found', `${pathname} is not a route of this endpoint`);
    }
    const host = options.hosts[0] ?? 'example.com';
    const items = ROUTE_NAMES.map((name) => {
      const url = `${options.prefix}${routes[name].path}${exampleQuery(name, host, new Date(clock.now()))}`;
      return `<li><code>${escapeHtml(options.prefix + routes[name].path)}</code> — <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></li>`;
    });
    const history = `${options.prefix}${HISTORY_PATH}?${new URLSearchParams({ host, metric: 'people', range: 'today' })}`;
    items.push(
      `<li><code>${escapeHtml(options.prefix + HISTORY_PATH)}</code> (ours: recorded here) — <a href="${escapeHtml(history)}">${escapeHtml(history)}</a></li>`,
    );
    const hosts = options.hosts.map((one) => `<code>${escapeHtml(one)}</code>`).join(', ');
    const shapes = options.shapes?.() ?? [];
    const seen =
      shapes.length === 0
        ? '<p>None yet: open your pages, then reload this one.</p>'
        : `<p>To answer only these (and refuse others with 403), start with:</p>\n<pre>PULSE_QUERIES="${escapeHtml(shapes.join(' '))}"</pre>`;
    const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pulse-widgets cache endpoint</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<h1>pulse-widgets cache endpoint</h1>
<p>${escapeHtml(options.mode)}. Hosts served: ${hosts}.</p>
<h2>Routes</h2>
<ul>
${items.join('\n')}
</ul>
<h2>Query shapes asked so far (this process)</h2>
${seen}
<p>The newsroom board: <a href="/board/">/board/</a> (set it up at <a href="/board/builder.html">/board/builder.html</a>).</p>
<p>Operations: <a href="${escapeHtml(options.prefix)}/healthz">healthz</a>, <a href="${escapeHtml(options.prefix)}/readyz">readyz</a>, <a href="${escapeHtml(options.prefix)}/metrics">metrics</a>.</p>
</body></html>
`;
    return new Response(request.method === 'HEAD' ? null : html, {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': "default-src 'none'",
        'x-content-type-options': 'nosniff',
      },
    });
  };
}
