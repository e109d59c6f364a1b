/**
 * The three browser engines for Node tests that drive a page: Chromium (CDP) and Firefox ESR
 * (WebDriver BiDi) through puppeteer-core, WebKitGTK through WebDriver classic. One small page
 * interface over both; what only the puppeteer engines can observe (console, response bodies)
 * is `undefined` in WebKit, so a test skips that check there and says why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext } from 'node:test';
import puppeteer, { type Browser as PuppeteerBrowser, type Page as PuppeteerPage } from 'puppeteer-core';
import {
  CHROMIUM_ARGS,
  findChromium,
  findEngine,
  findFirefox,
  installHint,
  selectedEngines,
  startWebKitDrivers,
  type Engine,
} from '../../scripts/browsers.mjs';
import { WebDriverSession } from '../../scripts/webdriver.mjs';

export type { Engine };

/** Why a check cannot run in WebKit: WebDriver classic reports no console and no network. */
export const WEBKIT_BLIND =
  'WebDriver classic (WebKitWebDriver) reports neither console messages nor response bodies';

export interface EnginePage {
  goto(url: string): Promise<void>;
  /** Evaluates a JavaScript expression in the page (awaited when it is a promise). */
  evaluate<T>(expression: string): Promise<T>;
  /** Resolves once `expression` is truthy in the page, polling; rejects after `timeoutMs`. */
  waitFor(expression: string, timeoutMs: number): Promise<void>;
  /** Console errors and uncaught exceptions; undefined where the engine cannot report them. */
  readonly consoleErrors: string[] | undefined;
  /** Every response the page received, as its headers and body in one text; undefined likewise. */
  readonly received: Promise<string>[] | undefined;
  close(): Promise<void>;
}

export interface EngineBrowser {
  readonly engine: Engine;
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}

const POLL_MS = 100;

/**
 * Truthiness is judged in the page: a DOM node crosses puppeteer's Firefox (WebDriver BiDi) as
 * nothing truthy, so the expression is wrapped in Boolean() there.
 */
async function poll(
  evaluate: (expression: string) => Promise<unknown>,
  expression: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await evaluate(`Boolean(${expression})`))) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function puppeteerPage(page: PuppeteerPage): EnginePage {
  const consoleErrors: string[] = [];
  const received: Promise<string>[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error instanceof Error ? error.message : String(error)));
  page.on('response', (response) => {
    received.push(
      response.buffer().then(
        (body) => JSON.stringify(response.headers()) + body.toString('latin1'),
        () => JSON.stringify(response.headers()),
      ),
    );
  });
  const evaluate = <T>(expression: string) => page.evaluate(expression) as Promise<T>;
  return {
    consoleErrors,
    received,
    evaluate,
    async goto(url) {
      await page.goto(url);
    },
    waitFor: (expression, timeoutMs) => poll(evaluate, expression, timeoutMs),
    close: () => page.close(),
  };
}

async function launchPuppeteer(engine: 'chromium' | 'firefox'): Promise<EngineBrowser> {
  const browser: PuppeteerBrowser =
    engine === 'chromium'
      ? await puppeteer.launch({ executablePath: findChromium(), headless: true, args: CHROMIUM_ARGS })
      : await puppeteer.launch({ browser: 'firefox', executablePath: findFirefox(), headless: true });
  return {
    engine,
    newPage: async () => puppeteerPage(await browser.newPage()),
    close: () => browser.close(),
  };
}

async function launchWebKit(): Promise<EngineBrowser> {
  const drivers = await startWebKitDrivers(1);
  let open: WebDriverSession | undefined;
  return {
    engine: 'webkit',
    async newPage() {
      // One WebKit page at a time: a page its check left open when it failed is closed here, so
      // that failure does not fail every check after it too.
      await open?.delete().catch(() => undefined);
      const session = await WebDriverSession.create(drivers.urls[0]!, drivers.capabilities);
      open = session;
      const evaluate = <T>(expression: string) => session.execute<T>(`return (${expression});`);
      return {
        consoleErrors: undefined,
        received: undefined,
        evaluate,
        goto: (url) => session.navigate(url),
        waitFor: (expression, timeoutMs) => poll(evaluate, expression, timeoutMs),
        async close() {
          // A later page may have taken its place (newPage closed this one): that one stays open.
          if (open === session) open = undefined;
          await session.delete();
        },
      };
    },
    async close() {
      await open?.delete().catch(() => undefined);
      drivers.stop();
    },
  };
}

export function launchEngine(engine: Engine): Promise<EngineBrowser> {
  return engine === 'webkit' ? launchWebKit() : launchPuppeteer(engine);
}

export interface EachEngineOptions {
  /**
   * Runs the engines' suites at the same time: for files whose checks mostly wait on the page's
   * real 3 s polls, so the three engines wait together instead of one after the other.
   */
  concurrently?: boolean;
}

/**
 * One `describe` per selected engine, with that engine's browser launched before its tests and
 * closed after; skipped with the reason printed where the engine is not installed (`npm test`
 * installs all three first, so there this only happens with a hand-run).
 */
export function describeEachEngine(
  title: string,
  body: (engine: Engine, browser: () => EngineBrowser) => void,
  options: EachEngineOptions = {},
): void {
  const eachEngine = () => {
    for (const engine of selectedEngines()) {
      // One check at a time within an engine (a suite inherits its parent's concurrency otherwise).
      describe(`${title} in ${engine}`, {
        skip: findEngine(engine) ? false : installHint(engine),
        concurrency: 1,
      }, () => {
        let browser: EngineBrowser | undefined;
        before(async () => {
          browser = await launchEngine(engine);
        });
        after(() => browser?.close());
        body(engine, () => browser!);
      });
    }
  };
  if (options.concurrently) describe(title, { concurrency: true }, eachEngine);
  else eachEngine();
}

/**
 * The browser's line for a 503 from the cache: it answers so when a cold fill outlasts its wait
 * (on a busy machine the simulator can be that slow), and the page polls again, as it must. Not
 * the page's fault (test/board.node.test.ts allows it for the same reason).
 */
const COLD_FILL_503 =
  'Failed to load resource: the server responded with a status of 503 (Service Unavailable)';

/**
 * Asserts the page logged no console error and threw nothing, as a subtest: skipped with the
 * reason printed in an engine that cannot see the console.
 */
export async function assertNoConsoleErrors(t: TestContext, page: EnginePage): Promise<void> {
  await t.test(
    'no console error or uncaught exception',
    { skip: page.consoleErrors ? false : WEBKIT_BLIND },
    () => {
      assert.deepEqual(
        page.consoleErrors!.filter((text) => text !== COLD_FILL_503),
        [],
      );
    },
  );
}
