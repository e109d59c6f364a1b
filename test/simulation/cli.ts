/**
 * `npm run simulate -- --seeds 1000` runs seeds 1…1000 (`--from N` to start elsewhere), on every
 * core (`--jobs J` child processes; default one per core); `--caught` adds every seed that once
 * caught a bug (caught.ts), as `npm test` runs them with `--seeds 40 --caught`;
 * `npm run simulate -- --seed 42` replays one seed and prints its scenario and record summary.
 * `--minutes M` sets the simulated length (default 10); `--sprayer rotating` (or `one-address`)
 * makes every seed's sprayer take a new address per request (or keep one) instead of as drawn;
 * `--clocks together` puts every instance's clock on the tier's instead of apart as drawn.
 * Exits 1 when any seed breaks an invariant.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { seedRuns } from './caught.ts';
import { runSeeds } from './pool.ts';
import type { Variant } from './scenario.ts';
import { replayCommand } from './simulate.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string' },
    from: { type: 'string' },
    caught: { type: 'boolean' },
    minutes: { type: 'string' },
    jobs: { type: 'string' },
    sprayer: { type: 'string' },
    clocks: { type: 'string' },
  },
});
if (values.sprayer !== undefined && values.sprayer !== 'rotating' && values.sprayer !== 'one-address') {
  console.error(`--sprayer is rotating or one-address, not ${JSON.stringify(values.sprayer)}`);
  process.exit(2);
}
if (values.clocks !== undefined && values.clocks !== 'together') {
  console.error(`--clocks is together, not ${JSON.stringify(values.clocks)}`);
  process.exit(2);
}
const variant: Variant = {
  ...(values.sprayer === undefined ? {} : { sprayer: values.sprayer }),
  ...(values.clocks === undefined ? {} : { clocks: values.clocks }),
};
const minutes = Number(values.minutes ?? 10);
const seeds =
  values.seed !== undefined
    ? [{ seed: Number(values.seed), variant }]
    : seedRuns(Number(values.seeds ?? 200), Number(values.from ?? 1), variant, values.caught);
const jobs = Math.min(seeds.length, Number(values.jobs ?? availableParallelism()));

const started = performance.now();
let failed = 0;
let cpu = 0;
const ages = new Map<number, number>();
const runs = runSeeds(seeds, minutes, jobs);
for (const [index, run] of runs.entries()) {
  const { seed, variant } = seeds[index]!;
  const result = await run.catch((error: Error) => ({
    seed,
    scenario: 'its process died',
    violations: [`crash: ${error.message}`],
    ages: [],
    polls: 0,
    arrivals: 0,
    grants: 0,
    sprays: [],
    cpuSeconds: 0,
  }));
  cpu += result.cpuSeconds;
  for (const [age, count] of result.ages) ages.set(age, (ages.get(age) ?? 0) + count);
  if (values.seed !== undefined) {
    console.log(`seed ${seed}: ${result.scenario}`);
    console.log(`  ${result.polls} polls, ${result.arrivals} upstream calls, ${result.grants} grants`);
    if (result.sprays.length > 0)
      console.log(
        `  sprayers answered: ${result.sprays.map(([status, count]) => `${count} × ${status}`).join(', ')}`,
      );
  }
  if (result.violations.length === 0) continue;
  failed += 1;
  console.log(
    `✖ seed ${seed} (${result.scenario}):\n  ${result.violations.join('\n  ')}\n  replay: ${replayCommand(seed, minutes, variant)}`,
  );
}
const seconds = (performance.now() - started) / 1000;
const steady = [...ages]
  .sort(([a], [b]) => a - b)
  .map(([age, count]) => `${age} s × ${count}`)
  .join(', ');
console.log(`${seeds.length - failed} passed, ${failed} failed`);
console.log(
  `${seeds.length} seeds × ${minutes} simulated minutes in ${seconds.toFixed(1)} s on ${jobs} process${jobs === 1 ? '' : 'es'}: ${((seeds.length * minutes) / seconds).toFixed(1)} simulated minutes per second`,
);
console.log(
  `CPU per seed: ${(cpu / seeds.length).toFixed(2)} s (the runs alone, without each process's start)`,
);
console.log(`data age at steady polls under capacity: ${steady || 'none'}`);
process.exit(failed === 0 ? 0 : 1);
