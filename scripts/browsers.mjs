/**
 * The three browser engines the tests run in, all from Debian packages: where each one is, which
 * packages bring it, and the launch settings every harness shares. WebKit (WebKitGTK's
 * MiniBrowser) is driven through WebKitWebDriver on a virtual display: `startWebKitDriver()`
 * starts both and they are killed by PID when the caller stops them or exits.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';

export const ENGINES = ['chromium', 'firefox', 'webkit'];

/** Debian packages that bring each engine (fonts come with them). */
export const DEBIAN_PACKAGES = {
  chromium: ['chromium'],
  firefox: ['firefox-esr'],
  webkit: ['webkit2gtk-driver', 'xvfb'],
};

/** Chromium as root needs --no-sandbox; the rest keeps a headless run quiet and offline. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/**
 * Firefox keeps timers of a background tab to one a second (and fewer once a budget runs out).
 * web-test-runner runs its concurrent test files as tabs of one window, so all but one are in
 * the background: axe, waitUntil and every setTimeout there crawled (a file took 40 s in Firefox,
 * 5 s in Chromium). Puppeteer lifts the same throttling in Chromium by default
 * (--disable-background-timer-throttling); these prefs do it for Firefox.
 */
export const FIREFOX_PREFS = {
  'dom.min_background_timeout_value': 4,
  'dom.min_background_timeout_value_without_budget_throttling': 4,
  'dom.timeout.enable_budget_timer_throttling': false,
};

/** The engines to test, `PULSE_BROWSERS=firefox,webkit` to narrow a run; all three by default. */
export function selectedEngines() {
  const asked = process.env.PULSE_BROWSERS?.split(',').map((name) => name.trim()).filter(Boolean);
  if (!asked?.length) return ENGINES;
  const unknown = asked.filter((name) => !ENGINES.includes(name));
  if (unknown.length) throw new Error(`PULSE_BROWSERS: unknown engine ${unknown.join(', ')} (known: ${ENGINES.join(', ')})`);
  return asked;
}

function firstExisting(envName, paths) {
  const fromEnv = process.env[envName];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return paths.find((path) => existsSync(path));
}

export function findChromium() {
  return firstExisting('CHROME_PATH', ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']);
}

export function findFirefox() {
  return firstExisting('FIREFOX_PATH', ['/usr/bin/firefox-esr', '/usr/bin/firefox']);
}

/** MiniBrowser lives in the multiarch library folder (`/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/`). */
function findMiniBrowser() {
  const multiarch = existsSync('/usr/lib') ? readdirSync('/usr/lib').filter((name) => name.includes('-linux-')) : [];
  return firstExisting('WEBKIT_MINIBROWSER', multiarch.map((dir) => `/usr/lib/${dir}/webkit2gtk-4.1/MiniBrowser`));
}

/** The three programs WebKit needs, or undefined when one is missing. */
export function findWebKit() {
  const miniBrowser = findMiniBrowser();
  const driver = firstExisting('WEBKIT_WEBDRIVER', ['/usr/bin/WebKitWebDriver']);
  const xvfb = firstExisting('XVFB_PATH', ['/usr/bin/Xvfb']);
  return miniBrowser && driver && xvfb ? { miniBrowser, driver, xvfb } : undefined;
}

/** Whether `engine` can run here. */
export function findEngine(engine) {
  return { chromium: findChromium, firefox: findFirefox, webkit: findWebKit }[engine]();
}

/** The variable that points at an engine's browser instead of the usual paths. */
export const PATH_VARIABLES = { chromium: 'CHROME_PATH', firefox: 'FIREFOX_PATH', webkit: 'WEBKIT_MINIBROWSER' };

/** One line telling how to get a missing engine. */
export function installHint(engine) {
  const variable = PATH_VARIABLES[engine];
  if (process.env[variable]) return `${variable}=${process.env[variable]} does not exist: point it at ${engine}'s binary or unset it.`;
  return `${engine} not found: install it (Debian: \`sudo apt-get install ${DEBIAN_PACKAGES[engine].join(' ')}\`), set ${variable}, or leave it out with PULSE_BROWSERS.`;
}

/** W3C capabilities for one MiniBrowser session in automation mode. */
export function webKitCapabilities(miniBrowser) {
  return { alwaysMatch: { 'webkitgtk:browserOptions': { binary: miniBrowser, args: ['--automation'] } } };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Kills a process group this module started (the driver's browsers are in it), once. */
function killGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const started = new Set();
let cleanupInstalled = false;

/**
 * Kills what this module started when the process ends, also by a signal (`timeout`, Ctrl-C):
 * the programs run detached, so nothing else would stop them.
 */
function installCleanup() {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  const killAll = () => {
    for (const child of started) killGroup(child);
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

const OUTPUT_TAIL = 4096;

/**
 * Spawns a program in a process group of its own (its children, the browsers, go with it) and
 * keeps reading what it prints, so a full pipe never blocks it; `tail()` is the last few kB.
 */
function startProcess(command, args, env) {
  const child = spawn(command, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => (output = (output + chunk).slice(-OUTPUT_TAIL));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  installCleanup();
  started.add(child);
  child.once('exit', () => started.delete(child));
  return { child, tail: () => output };
}

/** Starts Xvfb on a display number it picks itself (`-displayfd 1`: printed once ready). */
function startXvfb(xvfb) {
  const { child, tail } = startProcess(xvfb, ['-displayfd', '1', '-screen', '0', '1280x1000x24', '-nolisten', 'tcp'], process.env);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', () => {
      const display = /^(\d+)\n/m.exec(tail());
      if (display) resolve({ display: `:${display[1]}`, child });
    });
    child.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${tail().trim()}`)));
  });
}

async function waitForDriver(url, { child, tail }) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited with ${child.exitCode}: ${tail().trim()}`);
    try {
      const response = await fetch(`${url}/status`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`WebKitWebDriver did not answer at ${url} within 15 s`);
}

/**
 * A virtual display and `count` WebKitWebDrivers on free loopback ports (one driver holds one
 * session, so one driver per page run in parallel). `stop()` kills them all by PID.
 */
export async function startWebKitDrivers(count = 1) {
  const webkit = findWebKit();
  if (!webkit) throw new Error(installHint('webkit'));
  const xvfb = await startXvfb(webkit.xvfb);
  const env = { ...process.env, DISPLAY: xvfb.display };
  const drivers = [];
  try {
    for (let index = 0; index < count; index++) {
      const port = await freePort();
      const driver = startProcess(webkit.driver, [`--port=${port}`, '--host=127.0.0.1'], env);
      const url = `http://127.0.0.1:${port}`;
      drivers.push({ url, child: driver.child });
      await waitForDriver(url, driver);
    }
  } catch (error) {
    for (const { child } of drivers) killGroup(child);
    killGroup(xvfb.child);
    throw error;
  }
  return {
    urls: drivers.map(({ url }) => url),
    capabilities: webKitCapabilities(webkit.miniBrowser),
    stop() {
      for (const { child } of drivers) killGroup(child);
      killGroup(xvfb.child);
    },
  };
}

/**
 * The oldest major version of each engine our test tooling drives: the one puppeteer-core was
 * released against (Firefox over WebDriver BiDi needs its commands: Firefox ESR 140 lacks
 * `emulation.setScreenOrientationOverride` and every Firefox test failed at launch).
 * WebKitGTK is driven over WebDriver classic, which has no such floor.
 */
export async function oldestDriven() {
  const { PUPPETEER_REVISIONS } = await import('puppeteer-core');
  const major = (version) => Number(/(\d+)\./.exec(version)?.[1]);
  return { chromium: major(PUPPETEER_REVISIONS.chrome), firefox: major(PUPPETEER_REVISIONS.firefox) };
}

/** The major version an engine's binary reports (`Chromium 156.0…`, `Mozilla Firefox 153.7.0esr`), if it says. */
export function engineMajor(engine) {
  const binary = { chromium: findChromium, firefox: findFirefox }[engine]?.();
  if (!binary) return undefined;
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const match = /(\d+)\.\d+/.exec(result.stdout ?? '');
  return match ? Number(match[1]) : undefined;
}

/** The engines (of those found) older than our tooling drives, each with one line saying what to upgrade. */
export async function outdatedEngines(engines) {
  const oldest = await oldestDriven();
  return engines.flatMap((engine) => {
    const major = oldest[engine] === undefined || !findEngine(engine) ? undefined : engineMajor(engine);
    if (major === undefined || major >= oldest[engine]) return [];
    const hint = `${engine} ${major} is older than the ${oldest[engine]} our test tooling drives: upgrade it (Debian: \`sudo apt-get update && sudo apt-get install ${DEBIAN_PACKAGES[engine].join(' ')}\`), or set ${PATH_VARIABLES[engine]} to a newer one.`;
    return [{ engine, hint }];
  });
}
