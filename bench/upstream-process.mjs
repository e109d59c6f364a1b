/**
 * The simulated upstreams of bench/cache.mjs, in their own process so their latency is not
 * stretched by the load generator's event loop. Options come as JSON in argv[2]:
 * `{ apiKey, count, latencyMs, stamp, rateLimitPerMinute, gzip }`; with `gzip`, a caller that accepts
 * gzip gets the body compressed at level 6, as a service behind a compressing proxy answers. It sends `{ urls }` once listening;
 * on the message `'report'` it sends `{ calls }` (per upstream: when each call came, its key and
 * the status answered) and exits.
 */
import { gzipSync } from 'node:zlib';
import { listen } from '../src/runtime/node-http.ts';
import { createUpstreamHandler } from '../src/simulator/index.ts';

const {
  apiKey,
  count,
  latencyMs = 0,
  stamp = false,
  rateLimitPerMinute,
  gzip = false,
} = JSON.parse(process.argv[2]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One simulator counting its calls; optionally slow, optionally stamping each body with when it answered. */
async function startUpstream() {
  const simulator = createUpstreamHandler({ apiKey, rateLimitPerMinute });
  const calls = [];
  const server = await listen(async (incoming) => {
    const url = new URL(incoming.url);
    const call = { at: Date.now(), key: `${url.pathname}${url.search}`, status: 0 };
    calls.push(call);
    if (latencyMs > 0) await sleep(latencyMs);
    const response = await simulator(incoming);
    call.status = response.status;
    const compress = gzip && /gzip/.test(incoming.headers.get('accept-encoding') ?? '');
    if (response.status !== 200 || (!stamp && !compress)) return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    const text = stamp
      ? JSON.stringify({ ...(await response.json()), bench_served_at: Date.now() })
      : await response.text();
    if (!compress) return new Response(text, { status: 200, headers });
    headers.set('content-encoding', 'gzip');
    headers.set('vary', 'Accept-Encoding');
    return new Response(gzipSync(text, { level: 6 }), { status: 200, headers });
  });
  return { url: server.url, calls, close: server.close };
}

const upstreams = await Promise.all(Array.from({ length: count }, startUpstream));
process.send({ urls: upstreams.map((upstream) => upstream.url) });
process.on('message', async (message) => {
  if (message !== 'report') return;
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  process.send({ calls: upstreams.map((upstream) => upstream.calls) }, () => process.exit(0));
});
