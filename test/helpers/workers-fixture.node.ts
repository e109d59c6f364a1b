/**
 * `pulse-widgets serve --workers` as the CLI runs it, with cache options the CLI does not take
 * (scaled-down times) from `PULSE_TEST_CACHE_OPTIONS` (JSON). node:cluster forks this same script
 * for each worker, with the same environment. Prints `listening on <url>` once all serve.
 */
import { readSettings } from '../../src/server/config/settings.ts';
import { runWorkers } from '../../src/server/workers/cluster.ts';

const result = readSettings(['serve'], process.env);
if (!('settings' in result)) throw new Error(`bad settings: ${JSON.stringify(result)}`);
const running = await runWorkers(result.settings, JSON.parse(process.env.PULSE_TEST_CACHE_OPTIONS ?? '{}'));
if (running) {
  console.log(`listening on ${running.url}`);
  process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
}
