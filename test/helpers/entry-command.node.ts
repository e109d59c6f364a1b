/**
 * How a test runs one of our TypeScript entries (the CLIs, a fixture) in a process of its own.
 * Under `npm run test:node` they are bundled beside the test files (scripts/bundle-node-tests.mjs;
 * PULSE_TEST_BUNDLES names the folder) and start as plain JavaScript, in half the CPU that
 * loading the server through tsx takes (0.6 against 1.3 CPU-s); run otherwise
 * (`node --import tsx --test …`), they start through tsx.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Node's arguments that run `entry` (a path from the repository's root, or absolute): flags first, the module last. */
export function entryArgs(entry: string): string[] {
  const bundles = process.env.PULSE_TEST_BUNDLES;
  if (!bundles) return ['--import', 'tsx', entry];
  const fromRoot = isAbsolute(entry) ? relative(ROOT, entry) : entry;
  const bundled = join(bundles, fromRoot.replace(/\.ts$/, '.mjs'));
  if (!existsSync(bundled))
    throw new Error(
      `${fromRoot} was not bundled: name it in SPAWNED_ENTRIES (scripts/bundle-node-tests.mjs)`,
    );
  return ['--enable-source-maps', bundled];
}

/** `entry` as `fork` takes it: the module and the flags to start it with. */
export function forkable(entry: string): { module: string; execArgv: string[] } {
  const args = entryArgs(entry);
  return { module: args.at(-1)!, execArgv: args.slice(0, -1) };
}
