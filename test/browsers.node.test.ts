/**
 * The test setup refuses an engine older than our test tooling drives, in one line saying what
 * to upgrade: a machine with stale package lists installed Firefox ESR 140, which puppeteer-core
 * cannot drive, and every Firefox test then failed at launch.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { engineMajor, oldestDriven, outdatedEngines } from '../scripts/browsers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'pulse-engines-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in binary that only answers `--version`. */
function fakeBinary(name: string, version: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho "${version}"\n`);
  chmodSync(path, 0o755);
  return path;
}

function withEnv<T>(name: string, value: string, run: () => Promise<T> | T): Promise<T> {
  const before = process.env[name];
  process.env[name] = value;
  return Promise.resolve(run()).finally(() => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  });
}

test('the floor is what puppeteer-core was released against', async () => {
  const oldest = await oldestDriven();
  assert.ok(oldest.firefox >= 150 && oldest.chromium >= 100, JSON.stringify(oldest));
});

test('Firefox ESR 140 is refused with the upgrade to make; a recent one passes', async () => {
  const old = fakeBinary('firefox-140', 'Mozilla Firefox 140.12.0esr');
  await withEnv('FIREFOX_PATH', old, async () => {
    assert.equal(engineMajor('firefox'), 140);
    const [outdated, ...more] = await outdatedEngines(['firefox']);
    assert.equal(more.length, 0);
    assert.equal(outdated!.engine, 'firefox');
    assert.match(
      outdated!.hint,
      /^firefox 140 is older than the \d+ our test tooling drives: upgrade it \(Debian: `sudo apt-get update && sudo apt-get install firefox-esr`\)/,
    );
  });
  const recent = fakeBinary('firefox-999', 'Mozilla Firefox 999.0esr');
  await withEnv('FIREFOX_PATH', recent, async () => assert.deepEqual(await outdatedEngines(['firefox']), []));
});

test('a Chromium that does not say its version, and WebKit, are not judged', async () => {
  const silent = fakeBinary('chromium-silent', '');
  await withEnv('CHROME_PATH', silent, async () =>
    assert.deepEqual(await outdatedEngines(['chromium', 'webkit']), []),
  );
});
