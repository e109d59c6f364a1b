/**
 * `npm run simulator -- --port 9000 --seed 7 --key secret`: the simulated upstream on
 * 127.0.0.1. Flags or SIM_PORT / SIM_SEED / SIM_KEY; without a key a random one is made. It
 * prints its own key: it is a stand-in upstream, and a client needs the key to talk to it.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { listen } from '../runtime/node-http.ts';
import { DEMO_HOSTS, createUpstreamHandler } from './index.ts';

function wholeNumber(name: string, value: string): number {
  if (!/^\d{1,10}$/.test(value)) {
    console.error(`${name} must be a whole number, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return Number(value);
}

const { values } = parseArgs({
  options: { port: { type: 'string' }, seed: { type: 'string' }, key: { type: 'string' } },
  strict: true,
});
const port = wholeNumber('port', values.port ?? process.env.SIM_PORT ?? '9000');
const seed = wholeNumber('seed', values.seed ?? process.env.SIM_SEED ?? '1');
const apiKey = values.key ?? process.env.SIM_KEY ?? randomUUID();

const running = await listen(createUpstreamHandler({ apiKey, seed }), port, '127.0.0.1');
console.log(`Simulated upstream listening on ${running.url} (seed ${seed})`);
console.log(`Hosts: ${DEMO_HOSTS.join(', ')} (and video@ + each, for real-time endpoints)`);
console.log(`Key it expects in X-SVC-AK: ${apiKey}`);
console.log(
  `Try: curl -H 'X-SVC-AK: ${apiKey}' '${running.url}/live/toppages/v3/?host=${DEMO_HOSTS[0]}&limit=5&sort_by=engaged_time&loyalty=1&types=1'`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void running.close().then(() => process.exit(0));
  });
}
