/**
 * The demo page (examples/demo):
 *   `npm run dev` (`vite`)               the page, with the cache endpoint mounted as a dev-server
 *                                        plugin in front of the seeded simulator (no key, no network).
 *   `npm run build:demo` (`vite build`)  the page into dist/demo, which `npm start` serves with
 *                                        `pulse-widgets serve --static dist/demo`.
 * The npm package is not built here: `npm run build` (vite.lib.config.ts, scripts/build-cdn.mjs).
 */
import { randomBytes } from 'node:crypto';
import { defineConfig, type Plugin } from 'vite';

/** The cache endpoint on the dev server, filled by the simulator on a loopback port of its own. */
async function demoCache(): Promise<Plugin[]> {
  const { pulseWidgetsVitePlugin, listen } = await import('./src/server/index.ts');
  const { DEMO_HOSTS, createUpstreamHandler } = await import('./src/simulator/index.ts');
  const { demoHistory } = await import('./src/history/demo.ts');
  const apiKey = randomBytes(24).toString('base64url');
  const simulator = await listen(createUpstreamHandler({ apiKey, hosts: [...DEMO_HOSTS] }), 0, '127.0.0.1');
  const cache = pulseWidgetsVitePlugin({
    upstream: simulator.url,
    apiKey,
    hosts: [...DEMO_HOSTS],
    history: demoHistory(DEMO_HOSTS),
  });
  const stopSimulator: Plugin = {
    name: 'pulse-widgets-demo-simulator',
    configureServer: (server) => void server.httpServer?.once('close', () => void simulator.close()),
  };
  return [cache, stopSimulator];
}

export default defineConfig(async ({ command }) => ({
  root: 'examples/demo',
  publicDir: false,
  server: { host: '127.0.0.1', port: 5173 },
  plugins: command === 'serve' ? await demoCache() : [],
  build: { outDir: '../../dist/demo', emptyOutDir: true, target: 'es2022' },
}));
