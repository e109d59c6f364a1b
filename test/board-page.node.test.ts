/** The `/board/` route of the server: its files, the served sites, the policy on every answer. */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BOARD_CSP, createBoardPage, isBoardPath } from '../src/server/board-page.ts';

let built: string;

before(async () => {
  built = await mkdtemp(join(tmpdir(), 'pulse-board-'));
  await mkdir(join(built, 'assets'));
  await writeFile(join(built, 'index.html'), '<!doctype html><title>board</title>');
  await writeFile(join(built, 'assets', 'board-0123abcd.js'), 'export {};');
});

after(() => rm(built, { recursive: true, force: true }));

const get = (path: string, init?: RequestInit) => new Request(`http://127.0.0.1${path}`, init);

test('serves the built page and its assets under the strict policy', async () => {
  const board = await createBoardPage({ prefix: '', hosts: ['example.com'], directory: built });
  const page = await board(get('/board/?sites=example.com'));
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(page.headers.get('content-security-policy'), BOARD_CSP);
  assert.equal(await page.text(), '<!doctype html><title>board</title>');
  const script = await board(get('/board/assets/board-0123abcd.js'));
  assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(script.headers.get('content-security-policy'), BOARD_CSP);
  const redirect = await board(get('/board?size=l'));
  assert.equal(redirect.status, 308);
  assert.equal(redirect.headers.get('location'), '/board/?size=l');
  for (const path of ['/board/../package.json', '/board/%2e%2e/package.json', '/board/missing.html']) {
    const missing = await board(get(path));
    assert.equal(missing.status, 404, path);
    assert.equal(missing.headers.get('content-security-policy'), BOARD_CSP);
  }
});

test('tells the page the served sites (no video@ twins) and the route prefix, for GET only', async () => {
  const board = await createBoardPage({
    prefix: '/api',
    hosts: ['example.com', 'video@example.com', 'news.example.org'],
    directory: built,
  });
  const sites = await board(get('/board/sites.json'));
  assert.equal(sites.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.deepEqual(await sites.json(), { prefix: '/api', hosts: ['example.com', 'news.example.org'] });
  const post = await board(get('/board/sites.json', { method: 'POST' }));
  assert.equal(post.status, 405);
  assert.equal(((await post.json()) as { error: { code: string } }).error.code, 'method_not_allowed');
});

test('says how to build the board when it is not built', async () => {
  const board = await createBoardPage({ prefix: '', hosts: ['example.com'], directory: false });
  const answer = await board(get('/board/'));
  assert.equal(answer.status, 404);
  assert.match(
    ((await answer.json()) as { error: { message: string } }).error.message,
    /npm run build:board/,
  );
  assert.equal((await board(get('/board/sites.json'))).status, 200);
});

test('owns /board and what is under it, nothing else', () => {
  assert.deepEqual(
    ['/board', '/board/', '/board/builder.html', '/boardroom', '/live/board/'].map(isBoardPath),
    [true, true, true, false, false],
  );
});
