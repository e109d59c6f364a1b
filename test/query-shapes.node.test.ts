/**
 * Pinned query shapes (issue 27, item 3): the syntax and the matching as tables, the endpoint
 * refusing what is not pinned with 403, the settings, and the `/` page listing what was asked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIndexPage } from '../src/server/index-page.ts';
import { parseQueryShapes, pinned, shapeOf, type QueryShapes } from '../src/server/http/query-shapes.ts';
import { readSettings } from '../src/server/config/settings.ts';
import { closeAll, startVirtualCache } from './helpers/virtual-cache.node.ts';

const PINNED =
  'quickstats;toppages?limit&section=Politics|Tech  referrers?limit=5|10 summary?* toppages?author=Ann%20Lee&limit';

function shapes(text: string): QueryShapes {
  const parsed = parseQueryShapes(text);
  assert.ok('shapes' in parsed, JSON.stringify(parsed));
  return parsed.shapes;
}

test('syntax errors name the route or the parameter', () => {
  const table: [text: string, error: RegExp | undefined][] = [
    [PINNED, undefined],
    ['', undefined],
    ['toppage?limit', /"toppage" is not a route/],
    ['toppages?limt', /toppages has no parameter "limt"/],
    ['quickstats?host', undefined],
  ];
  for (const [text, error] of table) {
    const parsed = parseQueryShapes(text);
    if (error) assert.match('error' in parsed ? parsed.error : '', error, text);
    else assert.ok('shapes' in parsed, text);
  }
});

test('a query is answered when one entry of its route allows every parameter it has', () => {
  const pins = shapes(PINNED);
  const table: [route: Parameters<typeof pinned>[1], query: string, verdict: ReturnType<typeof pinned>][] = [
    ['quickstats', 'host=example.com', { ok: true }],
    ['quickstats', 'host=example.com&loyalty=1', { ok: false, param: 'loyalty' }],
    ['toppages', 'host=example.com&limit=10', { ok: true }],
    ['toppages', 'host=example.com&limit=3&section=Tech', { ok: true }],
    ['toppages', 'host=example.com&limit=10&section=Sport', { ok: false, param: 'section' }],
    ['toppages', 'author=Ann%20Lee&host=example.com&limit=5', { ok: true }],
    ['toppages', 'author=x1&host=example.com&limit=10', { ok: false, param: 'author' }],
    ['referrers', 'host=example.com&limit=5', { ok: true }],
    ['referrers', 'host=example.com&limit=20', { ok: false, param: 'limit' }],
    ['summary', 'host=example.com&keys=new,read', { ok: true }],
    ['top_geo', 'host=example.com', { ok: false }],
  ];
  for (const [route, query, verdict] of table)
    assert.deepEqual(pinned(pins, route, query), verdict, `${route}?${query}`);
});

test('a shape is the route and its parameter names, without host or values', () => {
  assert.equal(shapeOf('quickstats', 'host=example.com'), 'quickstats');
  assert.equal(shapeOf('toppages', 'section=Tech&host=example.com&limit=10'), 'toppages?limit&section');
});

test('the endpoint refuses what is not pinned with 403, lists what it was asked, and the settings check the syntax', async () => {
  const v = startVirtualCache({ queries: 'quickstats toppages?limit&section=Politics|Tech' });
  const asked = Promise.all([
    v.get('/live/quickstats/v4/?host=example.com'),
    v.get('/live/toppages/v3/?host=example.com&limit=5&section=Tech'),
    v.get('/live/toppages/v3/?host=example.com&author=x1'),
    v.get('/live/referrers/v3/?host=example.com'),
  ]);
  await v.clock.advance(3000);
  const [quickstats, toppages, author, referrers] = await asked;
  assert.deepEqual(
    [quickstats!.status, toppages!.status, author!.status, referrers!.status],
    [200, 200, 403, 403],
  );
  const refusal = JSON.parse(author!.text) as { error: { code: string; param?: string; message: string } };
  assert.equal(refusal.error.code, 'query_not_allowed');
  assert.equal(refusal.error.param, 'author');
  assert.match(refusal.error.message, /toppages\?author&limit/);
  assert.deepEqual(v.cache.queryShapes(), [
    'quickstats',
    'referrers',
    'toppages?author&limit',
    'toppages?limit&section',
  ]);
  const page = await createIndexPage({
    prefix: '',
    hosts: ['example.com'],
    mode: 'Demo mode',
    shapes: () => v.cache.queryShapes(),
  })(new Request('http://cache.test/'));
  assert.match(
    await page.text(),
    /<pre>PULSE_QUERIES="quickstats referrers toppages\?author&#38;limit toppages\?limit&#38;section"<\/pre>/,
  );
  await closeAll([v]);

  const refused = readSettings(['serve', '--queries', 'toppages?limt'], {});
  assert.match(
    'errors' in refused ? refused.errors.join('\n') : '',
    /^queries: toppages has no parameter "limt"/,
  );
  const read = readSettings(['serve'], { PULSE_QUERIES: 'quickstats' });
  assert.equal('settings' in read ? read.settings.queries : undefined, 'quickstats');
});
