import { chromeLauncher, defaultReporter } from '@web/test-runner';
import * as puppeteer from 'puppeteer-core';
import {
  CHROMIUM_ARGS,
  FIREFOX_PREFS,
  findChromium,
  findEngine,
  findFirefox,
  installHint,
  selectedEngines,
} from './scripts/browsers.mjs';
import { bundleTestFiles } from './scripts/bundle-test-files.mjs';
import { timingsReporter } from './scripts/test-timings.mjs';
import { webKitLauncher } from './scripts/webkit-launcher.mjs';

/**
 * Browser tests in the three engines, all from Debian packages: Chromium over CDP, Firefox ESR
 * over WebDriver BiDi (both through puppeteer-core), WebKitGTK over WebDriver classic.
 * `PULSE_BROWSERS=webkit npx web-test-runner test/foo.test.ts` runs one engine.
 */
const launchers = {
  chromium: () =>
    chromeLauncher({
      launchOptions: { executablePath: findChromium(), headless: true, args: CHROMIUM_ARGS },
    }),
  firefox: () =>
    chromeLauncher({
      puppeteer,
      launchOptions: {
        browser: 'firefox',
        executablePath: findFirefox(),
        headless: true,
        extraPrefsFirefox: FIREFOX_PREFS,
      },
    }),
  webkit: () => webKitLauncher({ concurrency: 2 }),
};

const engines = selectedEngines();
const missing = engines.filter((engine) => !findEngine(engine));
if (missing.length > 0) throw new Error(missing.map(installHint).join('\n'));

export default {
  files: ['test/**/*.test.ts', '!test/**/*.node.test.ts'],
  concurrency: 2,
  concurrentBrowsers: 3,
  // Lit in dev mode: failOnLitWarnings (test/helpers/browser-fakes.ts) fails a test on its warnings.
  middleware: [
    bundleTestFiles({
      dir: 'test',
      isTestFile: (name) => name.endsWith('.test.ts') && !name.endsWith('.node.test.ts'),
      conditions: ['development'],
      target: 'es2022',
      tsconfig: './tsconfig.json',
    }),
  ],
  browsers: engines.map((engine) => launchers[engine]()),
  // PULSE_TIMINGS=file.tsv: also write each file's seconds per engine and the slowest tests.
  ...(process.env.PULSE_TIMINGS
    ? { reporters: [defaultReporter(), timingsReporter(process.env.PULSE_TIMINGS)] }
    : {}),
  filterBrowserLogs: ({ args }) => !String(args[0]).includes('Lit is in dev mode'),
  // A hang guard, not a speed target: axe over a 25-test <headline-tests> page takes up to 9 s in
  // WebKit when the three engines share two busy cores.
  testFramework: { config: { timeout: 30000 } },
};
