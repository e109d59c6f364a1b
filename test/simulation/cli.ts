/**
 * `npm run simulate -- --seeds 1000` runs seeds 1…1000 (`--from N` to start elsewhere);
 * `npm run simulate -- --seed 42` replays one seed and prints its scenario and record summary.
 * `--minutes M` sets the simulated length (default 10). Exits 1 when any seed breaks an invariant.
 */
import { parseArgs } from 'node:util';
import { describeScenario, replayCommand, simulate } from './simulate.ts';

const { values } = parseArgs({ options: { seed: { type: 'string' }, seeds: { type: 'string' }, from: { type: 'string' }, minutes: { type: 'string' } } });
const minutes = Number(values.minutes ?? 10);
const seeds = values.seed !== undefined
  ? [Number(values.seed)]
  : Array.from({ length: Number(values.seeds ?? 200) }, (_, index) => Number(values.from ?? 1) + index);

const started = performance.now();
let failed = 0;
const ages = new Map<number, number>();
for (const seed of seeds) {
  const { scenario, verdict, record } = await simulate(seed, minutes);
  for (const [age, count] of verdict.ages) ages.set(age, (ages.get(age) ?? 0) + count);
  if (values.seed !== undefined) {
    console.log(`seed ${seed}: ${describeScenario(scenario)}`);
    console.log(`  ${record.polls.length} polls, ${record.arrivals.length} upstream calls, ${record.grants.length} grants`);
    if (record.sprays.size > 0) console.log(`  sprayers answered: ${[...record.sprays].map(([status, count]) => `${count} × ${status}`).join(', ')}`);
  }
  if (verdict.violations.length === 0) continue;
  failed += 1;
  console.log(`✖ seed ${seed} (${describeScenario(scenario)}):\n  ${verdict.violations.join('\n  ')}\n  replay: ${replayCommand(seed, minutes)}`);
}
const seconds = (performance.now() - started) / 1000;
const steady = [...ages].sort(([a], [b]) => a - b).map(([age, count]) => `${age} s × ${count}`).join(', ');
console.log(`${seeds.length - failed} passed, ${failed} failed`);
console.log(`${seeds.length} seeds × ${minutes} simulated minutes in ${seconds.toFixed(1)} s: ${((seeds.length * minutes) / seconds).toFixed(1)} simulated minutes per second`);
console.log(`data age at steady polls under capacity: ${steady || 'none'}`);
process.exit(failed === 0 ? 0 : 1);
