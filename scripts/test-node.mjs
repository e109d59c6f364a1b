/**
 * `npm run test:node`: every test/*.node.test.ts, three files at a time, the longest first. Node
 * starts files in the order given, and a long file started last would run alone at the end while
 * the other slots idle: the ones below take tens of seconds (real processes, browsers), the rest
 * a few each. Options are passed on to `node --test` (`--test-name-pattern=…`),
 * and files named run instead of all. The files run bundled into plain JavaScript
 * (scripts/bundle-node-tests.mjs), each without a TypeScript loader.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_DIR, bundleNodeTests } from './bundle-node-tests.mjs';

const LONGEST_FIRST = [
  'packed-package',
  'e2e-demo',
  'wordpress',
  'cross-origin-poll',
  'board',
  'cdn-csp',
  'server-workers',
  'server-instances',
  'server-redis',
].map((name) => `test/${name}.node.test.ts`);
/**
 * Three at once on two cores: the files wait on real processes, sockets and browsers for part
 * of their time, and with two the cores stood idle for a tenth of the step. Measured side by
 * side, two runs each, alternating: 161.8 s with two, 145.3 s with three, for the same CPU
 * (BENCHMARKS.md).
 */
const CONCURRENCY = 3;

const args = process.argv.slice(2);
const options = args.filter((arg) => arg.startsWith('-'));
const named = args.filter((arg) => !arg.startsWith('-'));
const rank = (file) => (LONGEST_FIRST.includes(file) ? LONGEST_FIRST.indexOf(file) : LONGEST_FIRST.length);
const files =
  named.length > 0
    ? named
    : readdirSync('test')
        .filter((name) => name.endsWith('.node.test.ts'))
        .map((name) => `test/${name}`)
        .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
const bundled = await bundleNodeTests(files);
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', `--test-concurrency=${CONCURRENCY}`, ...options, ...bundled],
  { stdio: 'inherit', env: { ...process.env, PULSE_TEST_BUNDLES: join(process.cwd(), BUNDLED_DIR) } },
);
process.exit(result.status ?? 1);
