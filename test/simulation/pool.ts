/**
 * Many seeds on every core: `jobs` child processes, each running one seed at a time and asking
 * for the next when it is done. A seed's run depends only on the seed (what a process shares
 * between its runs is memoised answers, the same whichever seed asked first), so which process
 * runs it does not change its record. With one job the seeds run here, one after the other.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { forkable } from '../helpers/entry-command.node.ts';
import type { Variant } from './scenario.ts';
import { describeScenario, simulate } from './simulate.ts';

/** What a parent needs of one seed's run: its verdict and the size of its record. */
export interface SeedResult {
  seed: number;
  /** The scenario in one line (`describeScenario`). */
  scenario: string;
  violations: string[];
  /** Data age at steady polls under capacity: [seconds, count]. */
  ages: [number, number][];
  polls: number;
  arrivals: number;
  grants: number;
  sprays: [number, number][];
  /** CPU seconds the run took in its process (user and system). */
  cpuSeconds: number;
}

/** One run: a seed, and the variant of its scenario. */
export interface SeedRun {
  seed: number;
  variant: Variant;
}

interface Ask extends SeedRun {
  /** The run's place in the list given to `runSeeds`: a seed may run twice, with two variants. */
  index: number;
  minutes: number;
}

export async function runSeed(seed: number, minutes: number, variant: Variant = {}): Promise<SeedResult> {
  const before = process.cpuUsage();
  const { scenario, verdict, record } = await simulate(seed, minutes, variant);
  const used = process.cpuUsage(before);
  return {
    seed,
    scenario: describeScenario(scenario),
    violations: verdict.violations,
    ages: [...verdict.ages],
    polls: record.polls.length,
    arrivals: record.arrivals.length,
    grants: record.grants.length,
    sprays: [...record.sprays],
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

const RUNNER = fileURLToPath(import.meta.url);
/**
 * Semi-spaces of 32 MiB (V8's default here is 16): a seed's garbage is bodies and answers that
 * die within a tick, and in a larger young generation more of them die before a scavenge copies
 * them. Side by side, seeds 1–24 in one process took a tenth less time, the simulation test
 * file on two processes 3–10 % less (BENCHMARKS.md); 32, 64 and 128 MiB were alike.
 */
const YOUNG_GENERATION = '--max-semi-space-size=32';

/**
 * Starts every run and answers one promise per run (in the order given), each settled as soon
 * as its seed is judged; a process that dies rejects the run it was running, and a new one
 * takes the rest. Child processes run this file (`forkable`: through tsx, or its bundle).
 */
export function runSeeds(runs: readonly SeedRun[], minutes: number, jobs: number): Promise<SeedResult>[] {
  const settlers: { resolve(result: SeedResult): void; reject(error: Error): void }[] = [];
  const promises = runs.map(
    (_, index) => new Promise<SeedResult>((resolve, reject) => (settlers[index] = { resolve, reject })),
  );
  // A run whose process died is reported by whoever awaits it, however late.
  for (const promise of promises) promise.catch(() => undefined);
  const queue: Ask[] = runs.map((run, index) => ({ ...run, index, minutes }));
  if (jobs <= 1) {
    void (async () => {
      for (const ask of queue)
        await runSeed(ask.seed, minutes, ask.variant).then(
          settlers[ask.index]!.resolve,
          settlers[ask.index]!.reject,
        );
    })();
    return promises;
  }
  const start = () => {
    const { module, execArgv } = forkable(RUNNER);
    const child: ChildProcess = fork(module, ['--seed-runner'], {
      execArgv: [YOUNG_GENERATION, ...execArgv],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let running: Ask | undefined;
    const next = () => {
      running = queue.shift();
      if (running === undefined) child.disconnect();
      else child.send(running);
    };
    child.on('message', (result: SeedResult) => {
      settlers[running!.index]!.resolve(result);
      next();
    });
    child.on('exit', (code, signal) => {
      if (running === undefined) return;
      settlers[running.index]!.reject(
        new Error(`the process running seed ${running.seed} exited (${signal ?? code})`),
      );
      running = undefined;
      if (queue.length > 0) start();
    });
    next();
  };
  for (let index = 0; index < Math.min(jobs, runs.length); index += 1) start();
  return promises;
}

if (process.argv.includes('--seed-runner')) {
  process.on('message', (ask: Ask) => {
    void runSeed(ask.seed, ask.minutes, ask.variant).then((result) => process.send!(result));
  });
}
