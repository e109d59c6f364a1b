/**
 * `npm run simulator` as a person runs it: the real CLI process on a free port, its printed curl
 * example answered, the key required, a bad flag refused, a clean stop on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { routes } from '../src/api/index.ts';
import { entryArgs } from './helpers/entry-command.node.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = entryArgs('src/simulator/cli.ts');

test('the simulator CLI serves its printed example, requires its key and stops on SIGTERM', async () => {
  const child = spawn(process.execPath, [...CLI, '--port', '0', '--seed', '7', '--key', 'cli-test-key'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 20_000;
    let example: RegExpExecArray | null = null;
    while (!(example = /curl -H 'X-SVC-AK: (\S+)' '(\S+)'/.exec(output))) {
      assert.ok(Date.now() < deadline && child.exitCode === null, `no start lines: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [, key, url] = example;
    assert.equal(key, 'cli-test-key');
    assert.match(output, /listening on http:\/\/127\.0\.0\.1:\d+ \(seed 7\)/);

    const answer = await fetch(url!, { headers: { 'X-SVC-AK': key! } });
    assert.equal(answer.status, 200);
    assert.ok(answer.headers.get('x-ratelimit-remaining'));
    const body = routes.toppages.response.parse(await answer.json());
    assert.equal(body.pages.length, 5);
    assert.ok(body.pages.every((page) => page.type !== undefined && page.stats?.loyalty !== undefined));

    assert.equal((await fetch(url!)).status, 401);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
});

test('the simulator CLI refuses a bad flag value in one line', () => {
  const run = spawnSync(process.execPath, [...CLI, '--port', 'eighty'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.equal(run.stderr.trim(), 'port must be a whole number, got "eighty"');
});
