/**
 * How long validating one poll's body takes in the browser's validator (checkResponse, no zod)
 * against zod/mini on the server side, on the same 100-page toppages body with every flag, side
 * by side in one run. `npx tsx bench/check-response.ts [rounds]`
 */
import { checkResponse, parseQuery, registerShape, routes } from '../src/api/index.ts';
import { TOPPAGES_SHAPE } from '../src/api/response-shapes.ts';
import { createSimulator } from '../src/simulator/index.ts';

const rounds = Number(process.argv[2] ?? 2000);
const parsed = parseQuery(
  'toppages',
  new URLSearchParams(
    'host=example.com&limit=100&all_platforms=1&loyalty=1&types=1&now_on=1&metrics=_pw,_rv,_cmp',
  ),
);
if (!parsed.success) throw new Error(parsed.problem.message);
const text = JSON.stringify(
  createSimulator({ seed: 3 }).answer('toppages', parsed.params, Date.UTC(2026, 10, 22, 14)),
);
const body: unknown = JSON.parse(text);
// What <top-pages> does when it is defined.
registerShape('toppages', TOPPAGES_SHAPE);

const candidates = {
  'checkResponse (browser)': () => checkResponse('toppages', body),
  'zod/mini safeParse (server)': () => routes.toppages.response.safeParse(body),
  'JSON.parse of the body': () => JSON.parse(text),
};
const totals = new Map<string, number>(Object.keys(candidates).map((name) => [name, 0]));
// Alternate in slices so a busy neighbour slows every candidate alike.
for (let slice = 0; slice < 10; slice++) {
  for (const [name, run] of Object.entries(candidates)) {
    for (let i = 0; i < 20; i++) run();
    const start = performance.now();
    for (let i = 0; i < rounds / 10; i++) run();
    totals.set(name, totals.get(name)! + performance.now() - start);
  }
}
const reference = totals.get('zod/mini safeParse (server)')!;
console.log(
  `toppages body: ${(text.length / 1000).toFixed(0)} kB, 100 pages; ${rounds} rounds each, Node ${process.version}`,
);
for (const [name, total] of totals) {
  console.log(
    `${name.padEnd(30)} ${(total / rounds).toFixed(3)} ms  (${(total / reference).toFixed(2)}× zod)`,
  );
}
