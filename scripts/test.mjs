/**
 * `npm test`: type check, lint, Node tests, browser tests, every Storybook story in Chromium
 * (built at low priority while the Node tests run), and the simulation's seeds (run at the
 * lowest priority from the start). Before the first test that needs a browser
 * (some Node tests drive the three engines too: the CMS page under CSP, the demo, the cross-origin
 * poll) it makes sure Chromium, Firefox and WebKit exist and are recent enough for our test
 * tooling, installing or upgrading Debian's packages when it runs as root with apt-get (package
 * lists refreshed first: stale lists install an old Firefox ESR), and otherwise stops with one
 * line per engine saying what to do. The servers the Node tests run for real (Redis, nginx,
 * WordPress: scripts/servers.mjs) are installed the same way when they can be; a test whose server
 * is missing skips with the reason.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import {
  DEBIAN_PACKAGES,
  findEngine,
  installHint,
  outdatedEngines,
  PATH_VARIABLES,
  selectedEngines,
} from './browsers.mjs';
import { SERVERS } from './servers.mjs';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  return result.status ?? 1;
}

/**
 * The exit status of a child started with `spawn` (1 when it could not start), once its output
 * has been read to the end: its 'exit' can come before the last of it, and the seeds' summary
 * (or a failing seed's replay command) was lost whenever they ended during a synchronous step.
 */
function exitOf(child) {
  return new Promise((resolve) =>
    child.on('error', () => resolve(1)).on('close', (code) => resolve(code ?? 1)),
  );
}

/** Runs the npm scripts side by side (each prints only what fails); the worst exit status. */
async function runTogether(scripts) {
  const statuses = await Promise.all(
    scripts.map((script) => exitOf(spawn('npm', ['run', '--silent', script], { stdio: 'inherit' }))),
  );
  return Math.max(...statuses);
}

const canApt = () =>
  process.getuid?.() === 0 && run('sh', ['-c', 'command -v apt-get >/dev/null'], { stdio: 'ignore' }) === 0;

let listsRefreshed = false;

/** Installs Debian packages, the package lists refreshed first once per run: stale lists install old versions. */
function aptInstall(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!listsRefreshed) run('apt-get', ['update', '-q'], { env });
  listsRefreshed = true;
  return run('apt-get', ['install', '-y', '-q', ...packages], { env });
}

async function ensureBrowsers() {
  const engines = selectedEngines();
  const missing = () => engines.filter((engine) => !findEngine(engine));
  // An engine whose path variable points somewhere is the user's choice: a typo or an old build to fix, not a package to install.
  const wanted = [...missing(), ...(await outdatedEngines(engines)).map(({ engine }) => engine)].filter(
    (engine) => !process.env[PATH_VARIABLES[engine]],
  );
  const packages = [...new Set(wanted.flatMap((engine) => DEBIAN_PACKAGES[engine]))];
  if (packages.length > 0 && canApt()) {
    console.log(
      `Installing or upgrading Debian's ${packages.join(' ')} with apt-get (package lists refreshed first)…`,
    );
    aptInstall(packages);
  }
  const outdated = await outdatedEngines(engines);
  for (const engine of missing()) console.error(installHint(engine));
  for (const { hint } of outdated) console.error(hint);
  return missing().length === 0 && outdated.length === 0;
}

/**
 * The servers the Node tests run for real, once per machine (root with apt-get), each server in
 * its own install so that one that fails leaves the others. Never fails the run: a test whose
 * server is missing skips, saying why in one line.
 */
function ensureServers() {
  const missing = SERVERS.filter((server) => !server.present());
  if (missing.length === 0 || !canApt()) return 0;
  for (const server of missing) {
    console.log(
      `Installing Debian's ${server.packages.join(' ')} with apt-get for the ${server.name} tests…`,
    );
    aptInstall(server.packages);
  }
  return 0;
}

/**
 * Gives the session `pid` leads the niceness of its processes. Linux's autogroup (on in Debian's
 * kernels) schedules each session as one, against the others: a niceness counts only among the
 * processes of its own session. Detached at niceness 19 without this, the seeds' session took
 * as much of the cores as all of `npm test`'s steps together, where it should take what they
 * leave. Nothing to do where there is no autogroup.
 */
function lowerSession(pid, niceness) {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(niceness));
  } catch {
    // Not Linux, or a kernel without autogroup: the niceness alone does it.
  }
}

/**
 * `npm run <script> -- <args>` in the background at `niceness` (what it starts inherits it);
 * resolves with its exit status and what it wrote to stderr, and to stdout too with `stdout`.
 * A step that fails, or a signal, ends the run, and the whole process group of the script with
 * it. (Killing npm alone left the seeds' processes running once the run had ended: npm exits on
 * SIGTERM without passing it on.)
 */
function runMeanwhile(script, args, niceness, { stdout = false, env = process.env } = {}) {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    stdio: ['ignore', stdout ? 'pipe' : 'ignore', 'pipe'],
    env,
    detached: true,
  });
  setPriority(child.pid, niceness);
  lowerSession(child.pid, niceness);
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // The group has ended already.
    }
  };
  process.on('exit', stop);
  // What the script left running would hold its output open, and the run would wait for it.
  child.on('exit', stop);
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return exitOf(child).then((status) => {
    process.off('exit', stop);
    return { status, output: Buffer.concat(output).toString() };
  });
}

/**
 * The Storybook build, started at niceness 10 before the Node tests: they leave part of the two
 * cores idle while they wait on real processes, sockets and browsers, and the build takes that
 * part instead of 15 s of its own before the story smoke, while the tests keep the cores they
 * ask for. Its errors are printed if it fails.
 */
const buildStorybookMeanwhile = () =>
  runMeanwhile('build-storybook', ['--quiet'], 10, {
    env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: '1' },
  });

let storybookBuild;

/**
 * Seeds 1…40 of the simulation, and every seed that caught a bug (72 runs). The other steps keep
 * two cores 97 % busy, so each run adds its own CPU (1.3–1.7 s) to the wall time: with 200 seeds
 * and the caught ones `npm test` took 311 s, past its 5 minutes, and with 60 and the caught ones
 * 227–260 s, past issue 22's 4 minutes in a fresh clone (BENCHMARKS.md). CI runs seeds 41–200
 * after it.
 */
const SIMULATION_SEEDS = 40;

/**
 * The simulation's seeds (test/simulation/caught.ts), on every core. Started first at niceness
 * 19: they take what the other steps leave of the cores, and add only the rest at the end.
 * Their lines are printed then.
 */
const simulateMeanwhile = () =>
  runMeanwhile('simulate', ['--seeds', String(SIMULATION_SEEDS), '--caught'], 19, { stdout: true });

let simulation;

async function simulationSeeds() {
  const { status, output } = await simulation;
  process.stdout.write(output);
  return status;
}

async function smokeStorybook() {
  const built = await storybookBuild;
  if (built.status !== 0) {
    console.error(`${built.output}\nstorybook build failed`);
    return built.status;
  }
  return run('npm', ['run', '--silent', 'smoke-storybook', '--', '--no-build']);
}

// Ended by a signal, the run still stops what it started in the background (`runMeanwhile`).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => process.exit(1));

const steps = [
  [
    'simulation seeds, in the background',
    () => {
      simulation = simulateMeanwhile();
      return 0;
    },
  ],
  // Together: the type checker and ESLint each keep one core busy for a few seconds.
  ['typecheck and lint', () => runTogether(['typecheck', 'lint'])],
  ['browsers', async () => ((await ensureBrowsers()) ? 0 : 1)],
  ['servers', ensureServers],
  [
    'storybook build, in the background',
    () => {
      storybookBuild = buildStorybookMeanwhile();
      return 0;
    },
  ],
  ['node tests', () => run('npm', ['run', '--silent', 'test:node'])],
  ['browser tests', () => run('npm', ['run', '--silent', 'test:browser'])],
  ['storybook smoke', smokeStorybook],
  ['simulation seeds', simulationSeeds],
];

for (const [name, step] of steps) {
  console.log(`\n▶ ${name}`);
  const started = performance.now();
  const status = await step();
  console.log(`  ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (status !== 0) {
    console.error(`✖ ${name} failed`);
    process.exit(status);
  }
}
console.log('\n✔ all test steps passed');
