/**
 * A web-test-runner browser launcher for WebKit: WebKitGTK's MiniBrowser through WebKitWebDriver
 * on a virtual display, both started here and killed by PID when the run ends. Each test file
 * gets a whole page (one WebDriver session, one driver each, since a driver holds one session),
 * never an iframe, so the tests see the same page as in the other engines.
 */
import { startWebKitDrivers } from './browsers.mjs';
import { WebDriverSession } from './webdriver.mjs';

export function webKitLauncher({ concurrency = 1 } = {}) {
  /** @type {Awaited<ReturnType<typeof startWebKitDrivers>> | undefined} */
  let drivers;
  let starting;
  const idle = [];
  const active = new Map();
  let created = 0;

  async function ensureDrivers() {
    starting ??= startWebKitDrivers(concurrency).then((started) => (drivers = started));
    return starting;
  }

  /** A session not running a test file: a recycled one, or a new one on the next free driver. */
  async function takeSession() {
    const recycled = idle.pop();
    if (recycled) return recycled;
    const { urls, capabilities } = await ensureDrivers();
    if (created >= urls.length) throw new Error(`more than ${urls.length} WebKit pages asked for at once`);
    const url = urls[created++];
    return WebDriverSession.create(url, capabilities);
  }

  return {
    name: 'WebKit',
    type: 'webdriver',
    concurrency,
    async startSession(sessionId, url) {
      const session = await takeSession();
      active.set(sessionId, { session, url });
      await session.navigate(url);
    },
    isActive(sessionId) {
      return active.has(sessionId);
    },
    getBrowserUrl(sessionId) {
      return active.get(sessionId)?.session.currentUrl();
    },
    async stopSession(sessionId) {
      const entry = active.get(sessionId);
      if (!entry) throw new Error(`No WebKit page for session ${sessionId}`);
      active.delete(sessionId);
      // An empty page stops whatever the test file left running before the session is reused.
      await entry.session.navigate('about:blank');
      idle.push(entry.session);
      return {};
    },
    async startDebugSession() {
      throw new Error('WebKit has no debug mode here: debug in Chromium (PULSE_BROWSERS=chromium).');
    },
    async stop() {
      await Promise.allSettled(
        [...idle, ...[...active.values()].map(({ session }) => session)].map((session) => session.delete()),
      );
      drivers?.stop();
    },
  };
}
