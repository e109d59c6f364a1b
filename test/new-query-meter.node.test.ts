/**
 * Upstream calls per client address for queries nobody polls (issue 27, item 2): the token
 * bucket as a table, and the endpoint on virtual time: a sprayer is refused past its burst while
 * a dashboard's reader, and the sprayer's own polls of what others poll, are not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_IP_HEADER } from '../src/runtime/node-http.ts';
import { takeToken, type Bucket } from '../src/server/http/new-query-meter.ts';
import { DASHBOARD_QUERIES } from './helpers/dashboard-queries.node.ts';
import { closeAll, pollOnGrid, startVirtualCache } from './helpers/virtual-cache.node.ts';

test('token bucket: a burst at once, then the rate a minute', () => {
  const table: [
    bucket: Bucket | undefined,
    now: number,
    perMinute: number,
    burst: number,
    after: Bucket,
    waitMs: number | undefined,
  ][] = [
    [undefined, 1000, 6, 30, { tokens: 29, at: 1000 }, undefined],
    [{ tokens: 1, at: 0 }, 0, 6, 30, { tokens: 0, at: 0 }, undefined],
    [{ tokens: 0, at: 0 }, 0, 6, 30, { tokens: 0, at: 0 }, 10_000],
    [{ tokens: 0, at: 0 }, 4000, 6, 30, { tokens: 0.4, at: 4000 }, 6000],
    [{ tokens: 0, at: 0 }, 10_000, 6, 30, { tokens: 0, at: 10_000 }, undefined],
    [{ tokens: 0, at: 0 }, 3_600_000, 6, 30, { tokens: 29, at: 3_600_000 }, undefined],
  ];
  for (const [bucket, now, perMinute, burst, after, waitMs] of table) {
    const taken = takeToken(bucket, now, perMinute, burst);
    assert.deepEqual(
      taken,
      waitMs === undefined ? { bucket: after } : { bucket: after, waitMs },
      JSON.stringify({ bucket, now }),
    );
  }
});

test('a sprayer is refused past its burst with 429 and Retry-After; a dashboard reader and every hit are not', async () => {
  const v = startVirtualCache({ newQueryLimit: 6, newQueryBurst: 10 });
  const from = (address: string) => ({ headers: { [CLIENT_IP_HEADER]: address } });
  const dashboard = DASHBOARD_QUERIES.slice(0, 6);
  const statuses = (replies: { status: number }[]) => replies.map((reply) => reply.status).join(' ');
  // A dashboard's reader polls 6 queries every 3 s for a minute (opening them at once: within any burst).
  const reader = pollOnGrid(v, dashboard, '198.51.100.1', 20);
  await v.clock.advance(6000);
  // The sprayer: 20 new queries, 200 ms apart.
  const sprayed: Promise<{ status: number; headers: Headers; text: string }>[] = [];
  for (let n = 0; n < 20; n += 1) {
    sprayed.push(v.get(`/live/toppages/v3/?host=example.com&author=x${n}`, from('203.0.113.9')));
    await v.clock.advance(200);
  }
  // Meanwhile the sprayer's address polls the dashboard's queries, which the reader polls: never counted.
  const polledByOthers = Promise.all(dashboard.map((path) => v.get(path, from('203.0.113.9'))));
  await v.clock.advance(6000);
  const replies = await Promise.all(sprayed);
  assert.equal(replies.filter((reply) => reply.status === 429).length, 10, statuses(replies));
  const refused = replies.find((reply) => reply.status === 429)!;
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal((JSON.parse(refused.text) as { error: { code: string } }).error.code, 'too_many_new_queries');
  assert.equal(statuses(await polledByOthers), '200 200 200 200 200 200');
  // Once its bucket has a token again (10 s at 6 a minute), the sprayer's address may ask a new query.
  await v.clock.advance(10_000);
  const later = v.get('/live/toppages/v3/?host=example.com&author=later', from('203.0.113.9'));
  await v.clock.advance(40_000);
  assert.equal((await later).status, 200);
  assert.deepEqual([...new Set(await reader)], [200], 'the reader was never refused');
  await closeAll([v]);
});

test('a reader past its bucket is answered the copies its queries still have, stale, not 429', async () => {
  const v = startVirtualCache({ newQueryLimit: 1, newQueryBurst: 4 });
  const from = { headers: { [CLIENT_IP_HEADER]: '198.51.100.1' } };
  // Unfolded and folded queries: their own copies, and a wide answer that covers them.
  const queries = [
    '/live/toppages/v3/?host=example.com&limit=10&section=News',
    '/live/toppages/v3/?host=example.com&limit=10&section=Sport',
    '/live/referrers/v3/?host=example.com&limit=5',
    '/live/referrers/v3/?host=example.com&limit=10',
  ];
  const pollAll = async () => {
    const replies = Promise.all(queries.map((path) => v.get(path, from)));
    await v.clock.advance(3000);
    return replies;
  };
  const statuses = (replies: { status: number }[]) => replies.map((reply) => reply.status);
  assert.deepEqual(statuses(await pollAll()), [200, 200, 200, 200]);
  // The tab hidden for 20 s: the copies are stale, the bucket holds a third of a token.
  await v.clock.advance(20_000);
  const shown = await pollAll();
  assert.deepEqual(statuses(shown), [200, 200, 200, 200]);
  for (const reply of shown) assert.match(reply.headers.get('cache-status')!, /fwd=(stale|miss)/);
  await closeAll([v]);
});
