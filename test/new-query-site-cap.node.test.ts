/**
 * Upstream calls all clients together may start for one site's queries nobody polls
 * (new-query-site-cap.ts): the decision as a table, and the endpoint on virtual time: a script
 * with a new address on every request passes the per-address meter and is refused past the
 * site's cap, while cold dashboards fill at once, an open one is never refused, a tab shown
 * again is answered its copies, and one that opens while the script holds the cap gets its
 * queries at its next poll. A query whose fill is under way, or whose tier copy an instance
 * answered without keeping it, is not new.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_IP_HEADER } from '../src/runtime/node-http.ts';
import { newQueryCap, type CapAnswer } from '../src/server/http/new-query-site-cap.ts';
import { DASHBOARD_QUERIES } from './helpers/dashboard-queries.node.ts';
import {
  closeAll,
  pollOnGrid,
  startVirtualCache,
  startVirtualCluster,
} from './helpers/virtual-cache.node.ts';

test('the cap: room in the window, a widget asking again, or wait', () => {
  const shape = { limit: 3, windowMs: 65_000, intervalMs: 3000 };
  const full = [10_000, 20_000, 30_000];
  const table: [started: number[], refusedAt: number | undefined, now: number, answer: CapAnswer][] = [
    // Room: fewer than the limit in the window that ends now.
    [[], undefined, 0, { start: true }],
    [[10_000, 20_000], undefined, 30_000, { start: true }],
    // The oldest has left the window (closed at both ends: exactly 65 s ago still counts).
    [full, undefined, 75_001, { start: true }],
    // Full: a first refusal waits one interval, and is remembered as made now.
    [full, undefined, 75_000, { start: false, waitMs: 3000, refusedAt: 75_000 }],
    [full, undefined, 40_000, { start: false, waitMs: 3000, refusedAt: 40_000 }],
    // Asked again too soon: the rest of ¾ of an interval, the refusal kept.
    [full, 40_000, 40_200, { start: false, waitMs: 2050, refusedAt: 40_000 }],
    // Asked again ¾ of an interval after its refusal, or at the next tick: a widget polling.
    [full, 40_000, 42_250, { start: true }],
    [full, 40_000, 43_000, { start: true }],
    [full, 40_000, 52_000, { start: true }],
    // Asked again more than four intervals later: a new ask, refused anew.
    [full, 40_000, 52_001, { start: false, waitMs: 3000, refusedAt: 52_001 }],
  ];
  for (const [started, refusedAt, now, answer] of table)
    assert.deepEqual(
      newQueryCap(started, refusedAt, now, shape),
      answer,
      JSON.stringify({ started, refusedAt, now }),
    );
});

const from = (address: string) => ({ headers: { [CLIENT_IP_HEADER]: address } });
const statuses = (replies: { status: number }[]) => replies.map((reply) => reply.status).join(' ');

test('two cold dashboards of 30 queries open together within the default cap', async () => {
  const v = startVirtualCache();
  const desks = Array.from(
    { length: 30 },
    (_, index) => `/live/toppages/v3/?host=example.com&limit=10&section=Desk${index + 1}`,
  );
  const queries = [...DASHBOARD_QUERIES, ...desks];
  assert.equal(queries.length, 60);
  const replies = Promise.all(
    queries.map((path, index) => v.get(path, from(index < 30 ? '192.0.2.1' : '192.0.2.2'))),
  );
  await v.clock.advance(6000);
  assert.deepEqual([...new Set(statuses(await replies).split(' '))], ['200']);
  await closeAll([v]);
});

test('a sprayer with a new address per request is refused past the cap; readers are not, and a dashboard opening meanwhile polls its way in', async () => {
  const v = startVirtualCache({ newQuerySiteLimit: 10 });
  // A reader's dashboard of 6 queries polls on the 3 s grid for a minute: 6 new queries at first.
  const dashboard = DASHBOARD_QUERIES.slice(0, 6);
  const reader = pollOnGrid(v, dashboard, '192.0.2.1', 20);
  await v.clock.advance(6000);
  // The sprayer: 20 new queries, 200 ms apart, each from an address of its own (the meter never refuses it).
  const sprayed: Promise<{ status: number; headers: Headers; text: string }>[] = [];
  for (let n = 0; n < 20; n += 1) {
    sprayed.push(v.get(`/live/toppages/v3/?host=example.com&author=x${n}`, from(`2001:db8::${n + 1}`)));
    await v.clock.advance(200);
  }
  await v.clock.advance(6000);
  const replies = await Promise.all(sprayed);
  // 10 a window: the dashboard's 6 first fills, then 4 of the sprayer's.
  assert.equal(statuses(replies), `${'200 '.repeat(4)}${'429 '.repeat(16)}`.trim());
  const refused = replies.at(-1)!;
  assert.equal(refused.headers.get('retry-after'), '3');
  assert.equal((JSON.parse(refused.text) as { error: { code: string } }).error.code, 'too_many_new_queries');
  // A second dashboard opens meanwhile: refused at its first poll, let in at its next tick.
  const second = [
    '/live/toppages/v3/?host=example.com&limit=10&section=Tech',
    '/live/quickstats/v4/?host=example.com&section=News',
  ];
  const first = Promise.all(second.map((path) => v.get(path, from('192.0.2.2'))));
  await v.clock.advance(100);
  assert.equal(statuses(await first), '429 429');
  await v.clock.advance(3000);
  const next = Promise.all(second.map((path) => v.get(path, from('192.0.2.2'))));
  await v.clock.advance(6000);
  assert.equal(statuses(await next), '200 200');
  await v.clock.advance(40_000);
  assert.deepEqual([...new Set(await reader)], [200], 'the reader was never refused');
  await closeAll([v]);
});

test('a tab shown again while a sprayer holds the cap is answered its copies: they are not new', async () => {
  const v = startVirtualCache({ newQuerySiteLimit: 10 });
  const dashboard = DASHBOARD_QUERIES.slice(0, 6);
  const poll = async () => {
    const replies = Promise.all(dashboard.map((path) => v.get(path, from('192.0.2.1'))));
    await v.clock.advance(3000);
    return replies;
  };
  assert.equal(statuses(await poll()), '200 200 200 200 200 200');
  // Hidden for 30 s, while a sprayer with an address per request takes the rest of the cap and more.
  const sprayed = Array.from({ length: 12 }, (_, n) =>
    v.get(`/live/toppages/v3/?host=example.com&author=z${n}`, from(`2001:db8::${n + 1}`)),
  );
  await v.clock.advance(30_000);
  assert.equal(statuses(await Promise.all(sprayed)), `${'200 '.repeat(4)}${'429 '.repeat(8)}`.trim());
  const shown = await poll();
  assert.equal(statuses(shown), '200 200 200 200 200 200');
  for (const reply of shown) assert.match(reply.headers.get('cache-status')!, /fwd=(stale|miss)/);
  await closeAll([v]);
});

test('a query whose fill waits for the budget is not new: a second reader joins it past the cap', async () => {
  // One call a second: a reader opening 18 queries at once, the site's cap, waits for most.
  const v = startVirtualCache({ newQuerySiteLimit: 18, budgetFills: 1 });
  const queries = Array.from({ length: 18 }, (_, n) => `/live/toppages/v3/?host=example.com&author=a${n}`);
  const opened = Promise.all(queries.map((path) => v.get(path, from('192.0.2.1'))));
  await v.clock.advance(4000);
  // A second reader asks the last one more than an interval later, its fill still queued:
  // answering it starts no call, so it is not refused.
  const last = queries.at(-1)!;
  const joined = v.get(last, from('192.0.2.2'));
  await v.clock.advance(10_000);
  await opened;
  assert.equal((await joined).status, 200);
  assert.equal(v.arrivals.filter((arrival) => arrival.key.includes('author=a17')).length, 1);
  await closeAll([v]);
});

test('a tier copy answered while a fill waited is not kept, yet its query is not new while it is servable', async () => {
  // Two instances, each with a cap share of 21 new queries and a new query a second.
  const [one, two] = startVirtualCluster(2, { newQuerySiteLimit: 42, budgetFills: 1 });
  const query = '/live/toppages/v3/?host=example.com&limit=10&section=Tech';
  // Instance one fills the query: its copy is in the tier.
  const filled = one!.get(query, from('192.0.2.1'));
  await one!.clock.advance(1000);
  assert.equal((await filled).status, 200);
  // The tier goes away. On instance two a reader opens 20 new queries, and another the query:
  // two's share of the cap is spent, and the query's fill, alone, waits behind the 20.
  one!.tier.up = false;
  const opened = Array.from({ length: 20 }, (_, n) =>
    two!.get(`/live/toppages/v3/?host=example.com&author=c${n}`, from('192.0.2.3')),
  );
  const waited = two!.get(query, from('192.0.2.2'));
  await one!.clock.advance(1000);
  one!.tier.up = true;
  // At the end of its wait two answers the tier's copy, stale. It does not keep it: a set would
  // abort the fill, which is dropped later, nobody asking for it any more.
  await one!.clock.advance(9000);
  const answered = await waited;
  assert.equal(answered.status, 200);
  assert.match(answered.headers.get('cache-status')!, /fwd=stale/);
  await Promise.all(opened);
  // The reader asks again, 10 s later: the copy it was answered is still servable, so the query
  // is not new.
  const again = two!.get(query, from('192.0.2.2'));
  await one!.clock.advance(2000);
  assert.equal((await again).status, 200);
  const fresh = await two!.get('/live/toppages/v3/?host=example.com&author=new', from('192.0.2.4'));
  assert.equal(fresh.status, 429, "two's share of the cap is spent");
  await closeAll([one!, two!]);
});

test('instances sharing a budget each keep their share of the cap', async () => {
  const [one, two] = startVirtualCluster(2, { newQuerySiteLimit: 10 });
  const spray = (v: typeof one, from: number) =>
    Array.from({ length: 8 }, (_, n) =>
      v!.get(`/live/toppages/v3/?host=example.com&author=y${from + n}`, {
        headers: { [CLIENT_IP_HEADER]: `2001:db8::${from + n}` },
      }),
    );
  const replies = Promise.all([...spray(one, 0), ...spray(two, 100)]);
  await one!.clock.advance(10_000);
  const answered = await replies;
  assert.equal(statuses(answered.slice(0, 8)), '200 200 200 200 200 429 429 429');
  assert.equal(statuses(answered.slice(8)), '200 200 200 200 200 429 429 429');
  await closeAll([one!, two!]);
});
