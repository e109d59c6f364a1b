/**
 * `npm test`: type check, then the Node tests beside the browser tests and every Storybook story
 * in Chromium (two lanes at once, each step's output printed when it ends). Before the
 * first test that needs a browser (some Node tests drive the three engines too: the CMS page under
 * CSP, the demo, the cross-origin poll) it makes sure Chromium, Firefox and WebKit exist and are
 * recent enough for our test tooling, installing or upgrading Debian's packages when it runs as
 * root with apt-get (package lists refreshed first: stale lists install an old Firefox ESR), and
 * otherwise stops with one line per engine saying what to do. Debian's WordPress (the plugin test)
 * is installed the same way when it can be; its test skips with the reason otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEBIAN_PACKAGES, findEngine, installHint, outdatedEngines, PATH_VARIABLES, selectedEngines } from './browsers.mjs';
import { findWordPress, WORDPRESS_PACKAGES } from './wordpress.mjs';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  return result.status ?? 1;
}

async function ensureBrowsers() {
  const engines = selectedEngines();
  const missing = () => engines.filter((engine) => !findEngine(engine));
  // An engine whose path variable points somewhere is the user's choice: a typo or an old build to fix, not a package to install.
  const wanted = [...missing(), ...(await outdatedEngines(engines)).map(({ engine }) => engine)].filter((engine) => !process.env[PATH_VARIABLES[engine]]);
  const packages = [...new Set(wanted.flatMap((engine) => DEBIAN_PACKAGES[engine]))];
  const canApt = process.getuid?.() === 0 && run('sh', ['-c', 'command -v apt-get >/dev/null'], { stdio: 'ignore' }) === 0;
  if (canApt && packages.length > 0) {
    console.log(`Installing or upgrading Debian's ${packages.join(' ')} with apt-get (package lists refreshed first)…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run('apt-get', ['update', '-q'], { env });
    run('apt-get', ['install', '-y', '-q', ...packages], { env });
  }
  const outdated = await outdatedEngines(engines);
  for (const engine of missing()) console.error(installHint(engine));
  for (const { hint } of outdated) console.error(hint);
  return missing().length === 0 && outdated.length === 0;
}

/**
 * Debian's WordPress for the plugin test, once per machine (root with apt-get). Never fails the
 * run: without it test/wordpress.node.test.ts skips, saying why in one line.
 */
function ensureWordPress() {
  if (findWordPress() || process.getuid?.() !== 0 || run('sh', ['-c', 'command -v apt-get >/dev/null'], { stdio: 'ignore' }) !== 0) return 0;
  console.log(`Installing Debian's ${WORDPRESS_PACKAGES.join(' ')} with apt-get for the WordPress plugin test…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-q'], { env });
  run('apt-get', ['install', '-y', '-q', ...WORDPRESS_PACKAGES], { env });
  return 0;
}

/** Runs an npm script with its output in `log`; resolves with its exit status. */
function runLogged(script, log) {
  return new Promise((resolve) => {
    const out = createWriteStream(log);
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.once('error', (error) => out.end(`${error}\n`, () => resolve(1)));
    child.once('close', (code) => out.end(() => resolve(code ?? 1)));
  });
}

const seconds = (started) => `${((performance.now() - started) / 1000).toFixed(1)} s`;

/** Quick steps first, one after another: a type error or a missing browser stops the run at once. */
const setup = [
  ['typecheck', () => run('npm', ['run', '--silent', 'typecheck'])],
  ['browsers', async () => ((await ensureBrowsers()) ? 0 : 1)],
  ['wordpress', ensureWordPress],
];
for (const [name, step] of setup) {
  console.log(`\n▶ ${name}`);
  const started = performance.now();
  const status = await step();
  console.log(`  ${name}: ${seconds(started)}`);
  if (status !== 0) {
    console.error(`✖ ${name} failed`);
    process.exit(status);
  }
}

/**
 * Then two lanes at once, each its steps in order: much of the Node tests' time is spent waiting
 * on real processes (servers, Redis, WordPress, browsers starting), which the browser tests fill.
 * Each step's output goes to its own log, printed whole when the step ends, so the lanes' lines
 * never interleave.
 */
const lanes = [['test:node'], ['test:browser', 'smoke-storybook']];
const logs = mkdtempSync(join(tmpdir(), 'pulse-test-'));
console.log(`\n▶ ${lanes.map((lane) => lane.join(' → ')).join('  ‖  ')} (logs in ${logs})`);
const failures = [];
await Promise.all(lanes.map(async (lane) => {
  for (const script of lane) {
    const started = performance.now();
    const log = join(logs, `${script.replace(':', '-')}.log`);
    const status = await runLogged(script, log);
    console.log(`\n━━ ${script} (${seconds(started)}, exit ${status}) ━━\n${readFileSync(log, 'utf8')}`);
    if (status !== 0) {
      failures.push(script);
      return;
    }
  }
}));
if (failures.length > 0) {
  console.error(`✖ failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('\n✔ all test steps passed');
