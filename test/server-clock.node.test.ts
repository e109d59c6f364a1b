/**
 * Time is a dependency of the cache endpoint and the history recorder: every part reaches the
 * time and its timers through the injected `Clock` (src/runtime/clock.ts), whose real one is the
 * only code in those folders (and in src/runtime, which they share) that touches real timers or reads real time.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('..', import.meta.url).pathname;
const FOLDERS = ['src/runtime', 'src/server', 'src/history'];
const CLOCK = 'src/runtime/clock.ts';
/** Calls that read real time or arm a real timer. A clock's own methods (`clock.setTimeout(`) are not these. */
const REAL_TIME =
  /(?<![\w.])(?:setTimeout|setInterval|setImmediate|clearTimeout|clearInterval|queueMicrotask)\(|timers\/promises|AbortSignal\.timeout|Date\.now\(|performance\.now\(|new Date\(\)/;

function files(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(folder, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(folder, entry.name)]
        : [],
  );
}

test('no real timer or real time outside the clock in src/runtime, src/server and src/history', () => {
  const found: string[] = [];
  for (const file of FOLDERS.flatMap(files)) {
    if (relative('.', file) === CLOCK) continue;
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '');
        if (REAL_TIME.test(code)) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, [], `real time outside ${CLOCK}:\n${found.join('\n')}`);
});

test('the guard sees what it guards against', () => {
  for (const line of [
    'setTimeout(fn, 5)',
    "import { setTimeout } from 'node:timers/promises'",
    'AbortSignal.timeout(200)',
    'const t = Date.now();',
    'new Date()',
  ])
    assert.ok(REAL_TIME.test(line), line);
  for (const line of [
    'clock.setTimeout(fn, 5)',
    'this.#clock.clearTimeout(timer)',
    'realClock.setTimeout(fn, 1)',
    'new Date(clock.now())',
  ])
    assert.ok(!REAL_TIME.test(line), line);
});
