/**
 * Real Chromium for the Node tests that load a page under a Content-Security-Policy
 * (the CMS example, the board): a browser, and pages that record every policy violation from
 * before their first script runs, plus console errors and uncaught page errors.
 */
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from '../../scripts/browsers.mjs';

interface ViolationEvent {
  effectiveDirective: string;
  blockedURI: string;
  sourceFile: string;
  lineNumber: number;
}
declare const document: {
  addEventListener(type: 'securitypolicyviolation', listener: (event: ViolationEvent) => void): void;
};

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  assert.ok(executablePath, 'no Chromium found: set CHROME_PATH');
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

export interface Watched {
  page: Page;
  /** CSP messages on the console (the page's own reports are read with `violations()`). */
  cspMessages: string[];
  consoleErrors: string[];
}

export async function watchedPage(
  browser: Browser,
  viewport?: { width: number; height: number },
): Promise<Watched> {
  const page = await browser.newPage(viewport ? { viewport } : {});
  const watched: Watched = { page, cspMessages: [], consoleErrors: [] };
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.defineProperty(globalThis, 'cspViolations', { value: seen });
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(
        `${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`,
      );
    });
  });
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) watched.cspMessages.push(message.text());
    else if (message.type() === 'error') watched.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watched.consoleErrors.push(error.message));
  return watched;
}

/** The violations the page reported through `securitypolicyviolation` events. */
export function violations(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(globalThis as unknown as { cspViolations: string[] }).cspViolations]);
}
