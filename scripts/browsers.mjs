/**
 * The three browser engines the tests run in, all from Debian packages: where each one is, which
 * packages bring it, and the launch settings every harness shares. WebKit (WebKitGTK's
 * MiniBrowser) is driven through WebKitWebDriver on a virtual display: `startWebKitDrivers()`
 * starts both and they are killed by PID when the caller stops them or exits.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { pickPort } from './ports.mjs';

export const ENGINES = ['chromium', 'firefox', 'webkit'];

/** Debian packages that bring each engine (fonts come with them). */
export const DEBIAN_PACKAGES = {
  chromium: ['chromium'],
  firefox: ['firefox-esr'],
  webkit: ['webkit2gtk-driver', 'xvfb'],
};

/** Chromium as root needs --no-sandbox; the rest keeps a headless run quiet and offline. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

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
  const asked = process.env.PULSE_BROWSERS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!asked?.length) return ENGINES;
  const unknown = asked.filter((name) => !ENGINES.includes(name));
  if (unknown.length)
    throw new Error(`PULSE_BROWSERS: unknown engine ${unknown.join(', ')} (known: ${ENGINES.join(', ')})`);
  return asked;
}

function firstExisting(envName, paths) {
  const fromEnv = process.env[envName];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return paths.find((path) => existsSync(path));
}

export function findChromium() {
  return firstExisting('CHROME_PATH', [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
  ]);
}

export function findFirefox() {
  return firstExisting('FIREFOX_PATH', ['/usr/bin/firefox-esr', '/usr/bin/firefox']);
}

/** MiniBrowser lives in the multiarch library folder (`/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/`). */
function findMiniBrowser() {
  const multiarch = existsSync('/usr/lib')
    ? readdirSync('/usr/lib').filter((name) => name.includes('-linux-'))
    : [];
  return firstExisting(
    'WEBKIT_MINIBROWSER',
    multiarch.map((dir) => `/usr/lib/${dir}/webkit2gtk-4.1/MiniBrowser`),
  );
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
export const PATH_VARIABLES = {
  chromium: 'CHROME_PATH',
  firefox: 'FIREFOX_PATH',
  webkit: 'WEBKIT_MINIBROWSER',
};

/** One line telling how to get a missing engine. */
export function installHint(engine) {
  const variable = PATH_VARIABLES[engine];
  if (process.env[variable])
    return `${variable}=${process.env[variable]} does not exist: point it at ${engine}'s binary or unset it.`;
  return `${engine} not found: install it (Debian: \`sudo apt-get install ${DEBIAN_PACKAGES[engine].join(' ')}\`), set ${variable}, or leave it out with PULSE_BROWSERS.`;
}

/** W3C capabilities for one MiniBrowser session in automation mode. */
export function webKitCapabilities(miniBrowser) {
  return { alwaysMatch: { 'webkitgtk:browserOptions': { binary: miniBrowser, args: ['--automation'] } } };
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
  const { child, tail } = startProcess(
    xvfb,
    ['-displayfd', '1', '-screen', '0', '1280x1000x24', '-nolisten', 'tcp'],
    process.env,
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', () => {
      const display = /^(\d+)\n/m.exec(tail());
      if (display) resolve({ display: `:${display[1]}`, child });
    });
    child.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${tail().trim()}`)));
  });
}

/** Whether process `pid` itself holds the listening socket on 127.0.0.1:`port` (Linux /proc). */
function listensOn(pid, port) {
  let table;
  try {
    table = readFileSync(`/proc/${pid}/net/tcp`, 'utf8');
  } catch {
    return false;
  }
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const LISTEN = '0A';
  const inodes = table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1] === local && fields[3] === LISTEN)
    .map((fields) => fields[9]);
  if (inodes.length === 0) return false;
  let fds;
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  const sockets = new Set(inodes.map((inode) => `socket:[${inode}]`));
  return fds.some((fd) => {
    try {
      return sockets.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      return false;
    }
  });
}

/** A hang guard, not a speed target: a browser starts in seconds even on a busy machine. */
const LISTEN_WITHIN_MS = 60_000;
const PORT_TRIES = 5;

/** What MiniBrowser and WebKitWebDriver print when their port is taken. */
const PORT_TAKEN = /Failed to start remote inspector server|Address already in use/i;

/**
 * Whether the started process listens on `port` itself: true once it does, false once it cannot
 * (it exited, or said the port is taken).
 */
async function listens(name, { child, tail }, port) {
  const deadline = Date.now() + LISTEN_WITHIN_MS;
  while (!listensOn(child.pid, port)) {
    if (child.exitCode !== null || PORT_TAKEN.test(tail())) return false;
    if (Date.now() > deadline)
      throw new Error(
        `${name} did not listen on port ${port} within ${LISTEN_WITHIN_MS / 1000} s: ${tail().trim()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Starts `name` (from `launch(port)`) and resolves once that very process listens on its port;
 * another port is picked when it cannot have it. Owning the port is what makes a client of it
 * talk to this process.
 */
async function startListening(name, launch) {
  for (let attempt = 1; attempt <= PORT_TRIES; attempt++) {
    const port = pickPort();
    const started = launch(port);
    const owned = await listens(name, started, port).catch((error) => {
      killGroup(started.child);
      throw error;
    });
    if (owned) return { ...started, port };
    killGroup(started.child);
  }
  throw new Error(`${name}: ${PORT_TRIES} ports in a row were taken by someone else`);
}

/**
 * A virtual display and `count` WebKit browsers, each driven by a WebKitWebDriver of its own
 * (a driver holds one session, so one per page run in parallel). `stop()` kills them all by PID.
 *
 * We start MiniBrowser ourselves and hand its inspector address to the driver (`--target`):
 * left to itself, WebKitWebDriver picks the browser's inspector port by binding port 0 and
 * closing it again, and the browser binds it a second or more later. When any other process
 * was handed that port in between (another WebKit run, a test server, a browser), the browser
 * could not listen, the driver connected to whoever held the port (seen: the other run's
 * MiniBrowser) and its new-session request never got an answer (undici's "fetch failed" after
 * 300 s). Each port here is owned before anyone is told about it.
 */
export async function startWebKitDrivers(count = 1) {
  const webkit = findWebKit();
  if (!webkit) throw new Error(installHint('webkit'));
  const xvfb = await startXvfb(webkit.xvfb);
  const env = { ...process.env, DISPLAY: xvfb.display };
  const children = [xvfb.child];
  const urls = [];
  try {
    for (let index = 0; index < count; index++) {
      const browser = await startListening('MiniBrowser', (port) =>
        startProcess(webkit.miniBrowser, ['--automation'], {
          ...env,
          WEBKIT_INSPECTOR_SERVER: `127.0.0.1:${port}`,
        }),
      );
      children.push(browser.child);
      const driver = await startListening('WebKitWebDriver', (port) =>
        startProcess(
          webkit.driver,
          [`--port=${port}`, '--host=127.0.0.1', `--target=127.0.0.1:${browser.port}`],
          env,
        ),
      );
      children.push(driver.child);
      urls.push(`http://127.0.0.1:${driver.port}`);
    }
  } catch (error) {
    for (const child of children) killGroup(child);
    throw error;
  }
  return {
    urls,
    capabilities: webKitCapabilities(webkit.miniBrowser),
    stop() {
      for (const child of children) killGroup(child);
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
