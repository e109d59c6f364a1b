/**
 * Cache instances sharing a tier as `--workers` does (IpcTier to one Coordinator), on a virtual
 * clock, polled on the 3 s grid by widgets whose requests land on any instance: the refresh
 * plans agree slot for slot, the shared budget holds, and an instance waiting for another's
 * refill answers that refill's entry. (The real processes of `--workers` are tested in
 * server-workers.node.test.ts; timing is proven here.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_IP_HEADER } from '../src/runtime/node-http.ts';
import { maxInSlidingWindow, upstreamLogLines } from './helpers/cache-harness.node.ts';
import { closeAll, startVirtualCluster, type VirtualCache } from './helpers/virtual-cache.node.ts';
import { moveUntil, moveUntilSettled } from './helpers/virtual-clock.node.ts';
import { pollAsNodeHttp, textOf, type PollAnswer } from './simulation/node-poll.ts';

const TICK = 3000;

/** Each path's request goes to an instance in turn, as a cluster deals fresh connections. */
function dealer(instances: readonly VirtualCache[]) {
  let next = 0;
  return (path: string) => instances[(next += 1) % instances.length]!.get(path);
}

test('a dashboard polled on the 3 s grid across 3 instances: one refill per query per tick, the most polled last before the tick', async () => {
  const trio = startVirtualCluster(3);
  const { clock } = trio[0]!;
  const get = dealer(trio);
  // Five upstream queries: toppages folds four widgets (limit=4 fills them), the others one each.
  const widest = '/live/toppages/v3/?host=example.com&limit=4';
  const singles = [
    '/live/quickstats/v4/?all_platforms=1&host=example.com',
    '/live/referrers/v3/?host=example.com&limit=5',
    '/live/summary/v3/?host=example.com&keys=new',
    '/live/top_geo/v1/?host=example.com&limit=5',
  ];
  const paths = [1, 2, 3, 4]
    .map((limit) => `/live/toppages/v3/?host=example.com&limit=${limit}`)
    .concat(singles);
  const first = Math.ceil((clock.now() + 500) / TICK) * TICK;
  const ticks = Array.from({ length: 10 }, (_, tick) => first + tick * TICK);
  const statuses: number[] = [];
  for (const tick of ticks) {
    await clock.runUntil(tick + 30);
    const replies = Promise.all(paths.map(get));
    await clock.advance(1000);
    statuses.push(...(await replies).map((reply) => reply.status));
  }
  // The plan as /metrics shows it, from any instance: the same everywhere.
  for (const instance of trio) {
    const metrics = instance.get('/metrics');
    await clock.advance(0);
    const text = (await metrics).text;
    const gauge = (name: string) =>
      Number(new RegExp(`^pulse_schedule_${name}\\{host="example.com"\\} ([\\d.]+)$`, 'm').exec(text)?.[1]);
    assert.deepEqual(
      {
        keys: gauge('keys'),
        groups: gauge('groups'),
        callsPerMinute: gauge('calls_per_minute'),
        stretch: gauge('stretch'),
      },
      { keys: 8, groups: 5, callsPerMinute: 100, stretch: 1 },
    );
  }
  await closeAll(trio);
  assert.deepEqual([...new Set(statuses)], [200]);
  const arrivals = trio[0]!.arrivals.filter((call) => call.site === 'example.com');
  // From the third tick on (the first fills were cold, at the first tick), each tick's plan:
  for (const tick of ticks.slice(2)) {
    const inTick = arrivals.filter((call) => call.at > tick - TICK && call.at <= tick);
    const seen = inTick.map((call) => `${call.at - tick} ms ${call.key}`).join(', ');
    // Plans that disagreed filled a query twice, or a query whose fill a lease held a whole
    // interval missed its slot and was filled after the tick, every tick.
    assert.deepEqual(
      inTick.map((call) => call.key).sort(),
      [widest, ...singles].sort(),
      `one fill per query before the tick: ${seen}`,
    );
    // Plans that ordered queries by name put the widest (four widgets) in the window before last.
    assert.ok(
      inTick.find((call) => call.key === widest)!.at > tick - 1000,
      `the most polled query is filled in the last second before the tick: ${seen}`,
    );
  }
});

test('15 competing keys polled across 3 instances for 3 minutes: at most 183 calls in any sliding minute between them', async () => {
  const trio = startVirtualCluster(3, { fold: false });
  const { clock } = trio[0]!;
  const get = dealer(trio);
  const paths = Array.from({ length: 15 }, (_, i) => `/live/toppages/v3/?host=example.com&limit=${i + 1}`);
  const stopAt = clock.now() + 180_000;
  // 15 keys refreshed every TTL want 5 fills a second, the budget carries 3: fills queue.
  const statuses = new Map<number, number>();
  const pollers = paths.map(async (path) => {
    while (clock.now() < stopAt) {
      const reply = await get(path);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      await clock.sleep(1000);
    }
  });
  await clock.runUntil(stopAt + 5000);
  await Promise.all(pollers);
  await closeAll(trio);
  const granted = trio
    .flatMap((instance) => instance.logs.map((line) => JSON.parse(line) as Record<string, unknown>))
    .filter((line) => line.msg === 'budget slot granted' && line.site === 'example.com');
  assert.ok(granted.length > 0 && granted.every((line) => line.shared === true), 'no instance acted alone');
  const most = maxInSlidingWindow(
    granted.map((line) => Number(line.grantedAt)),
    60_000,
  );
  const arrivals = maxInSlidingWindow(
    trio[0]!.arrivals.filter((call) => call.site === 'example.com').map((call) => call.at),
    60_000,
  );
  const byInstance = trio.map((instance) => upstreamLogLines(instance.logs).length);
  assert.ok(most <= 183, `${most} slots granted in one sliding minute`);
  assert.ok(most >= 170, `${most}: the budget was actually spent`);
  assert.ok(arrivals < 200, `${arrivals}: the upstream never sees its limit reached`);
  assert.ok(
    byInstance.filter((calls) => calls > 0).length >= 2,
    `more than one instance filled: ${byInstance.join(' + ')}`,
  );
  assert.deepEqual(
    [...statuses.keys()],
    [200],
    `answers: ${[...statuses].map(([status, count]) => `${count}×${status}`).join(' ')}`,
  );
});

test('a folded query back from a hidden tab, polled on another instance first, is answered from the wide fill on every instance', async () => {
  const pair = startVirtualCluster(2);
  const { clock } = pair[0]!;
  const paths = [1, 2, 3, 4].map((limit) => `/live/toppages/v3/?host=example.com&limit=${limit}`);
  const first = Math.ceil((clock.now() + 500) / TICK) * TICK;
  const hidden = { from: first + 5 * TICK, to: first + 10 * TICK };
  const ticks = Array.from({ length: 20 }, (_, tick) => first + tick * TICK);
  for (const [index, tick] of ticks.entries()) {
    await clock.runUntil(tick + 30);
    // limit=1's tab is hidden for five ticks: the group forgets it on both instances. Each
    // query's polls land on the two instances in turn.
    const asked = tick >= hidden.from && tick < hidden.to ? paths.slice(1) : paths;
    const replies = Promise.all(asked.map((path, at) => pair[(at + index) % 2]!.get(path)));
    await clock.advance(1000);
    assert.deepEqual([...new Set((await replies).map((reply) => reply.status))], [200]);
  }
  await closeAll(pair);
  const own = pair[0]!.arrivals.filter((call) => call.at > hidden.to + TICK && !call.key.endsWith('limit=4'));
  // Back, it was one object in the fold group and another in the instance's own map: the group's
  // fill covered the first, and the second filled limit=1 by itself every tick.
  assert.deepEqual(
    own.map((call) => `${call.at - hidden.to} ms ${call.key}`),
    [],
  );
});

test("a poll on an instance waiting for another's refill gets the entry that refill wrote, not its own older copy", async () => {
  const pair = startVirtualCluster(2, { fold: false });
  const { clock, upstreamGate } = pair[0]!;
  const path = '/live/toppages/v3/?host=example.com&limit=10';
  const address = '203.0.113.7';
  // As `listen` hands a poll over: the node:http hit path first, then the Web handler.
  const ask = (instance: VirtualCache) =>
    pollAsNodeHttp(
      instance.cache,
      path,
      address,
      new Request(`http://cache.test${path}`, { headers: { [CLIENT_IP_HEADER]: address } }),
    );
  const poll = (instance: VirtualCache) => moveUntilSettled(clock, ask(instance), 1000, 1);
  // Polled on both instances on the 3 s grid: established, refilled ahead of each tick by one.
  const first = Math.ceil((clock.now() + 500) / TICK) * TICK;
  let before = '';
  for (let tick = 0; tick < 4; tick += 1) {
    await clock.runUntil(first + tick * TICK + 30);
    for (const instance of pair) before = textOf(await poll(instance));
  }
  const calls = pair.map((instance) => upstreamLogLines(instance.logs).length);
  // The next planned refill: one instance's call is held, the other waits for its entry. Held
  // past the tick (under the 2 s upstream timeout), so both copies are stale by then.
  const release = upstreamGate.hold();
  await moveUntil(clock, () => upstreamGate.waiting > 0, 'the planned refill', 2 * TICK, 1);
  await clock.advance(1500);
  release();
  await moveUntil(
    clock,
    () => pair.some((instance, index) => upstreamLogLines(instance.logs).length > calls[index]!),
    'the held refill to be answered',
    1000,
    1,
  );
  const holder = pair.find((instance, index) => upstreamLogLines(instance.logs).length > calls[index]!)!;
  const waiter = pair.find((instance) => instance !== holder)!;
  assert.deepEqual(
    pair.map((instance, index) => upstreamLogLines(instance.logs).length - calls[index]!).sort(),
    [0, 1],
    'one refill between the two',
  );
  let after = '';
  await moveUntil(
    clock,
    async () => (after = textOf(await poll(holder))) !== before,
    'the holder to store',
    100,
    1,
  );
  // The holder's entry reaches the shared tier in a message. The waiter claims the lease and
  // reads the tier about every 50 ms, each a round trip: until it has the entry, its hit path
  // must leave the key to the Web handler, which adopts it, and never answer its own copy a tick
  // older. Asked every millisecond (each poll's answer awaited after) for two of its rounds.
  const asked: Promise<PollAnswer>[] = [];
  for (let ms = 0; ms < 120; ms += 1) {
    asked.push(ask(waiter));
    await clock.advance(1);
  }
  const answers = await moveUntilSettled(clock, Promise.all(asked), 1000, 1);
  for (const [ms, answer] of answers.entries()) {
    assert.equal(answer.status, 200);
    assert.ok(
      textOf(answer) === after,
      `${ms} ms after the holder stored: ${answer.headers.get('cache-status')}`,
    );
  }
  await closeAll(pair);
});

test("a folded query filled alone, waiting for the budget, is answered from the tier's copy of a wide query that covers it", async () => {
  // One fill per host every 20 s between the two: an instance that loses the tier holds its
  // fills until the window after next, past every poll's 5 s wait.
  const pair = startVirtualCluster(2, { budgetFills: 1, budgetWindowMs: 20_000 });
  const [filler, fresh] = pair as [VirtualCache, VirtualCache];
  const { clock, tier, arrivals } = filler;
  const start = clock.now();
  const member = '/live/summary/v3/?host=example.com&keys=new,read,time_spent';
  const other = '/live/summary/v3/?host=example.com&keys=domain,title';
  const wide = '/live/summary/v3/?host=example.com&keys=domain%2Cnew%2Cread%2Ctime_spent%2Ctitle';
  const poll = (instance: VirtualCache, paths: readonly string[]) =>
    moveUntilSettled(clock, Promise.all(paths.map((path) => instance.get(path))), 10_000);
  /** Status, how the cache answered (`fwd`), and the key the answer came from. */
  const source = ({ status, headers }: { status: number; headers: Headers }) => {
    const cacheStatus = headers.get('cache-status') ?? '';
    return `${status} ${/fwd=(\w+)/.exec(cacheStatus)?.[1]} ${/key="([^"]+)"/.exec(cacheStatus)?.[1]}`;
  };

  // The first instance fills the group's wide query: the tier keeps its answer.
  for (const reply of await poll(filler, [member, other])) assert.equal(source(reply), `200 miss ${wide}`);
  // The other asks for the group while the tier is lost: its fill of the wide query is held for
  // the budget, and at the end of the wait, the tier back, the poll is answered from the tier's
  // copy. That copy is not kept here: kept while the key's own fill runs, it would abort the fill.
  await clock.runUntil(start + 1000);
  tier.up = false;
  await clock.runUntil(start + 4000);
  const answered = poll(fresh, [member, other]);
  await clock.runUntil(start + 6000);
  tier.up = true;
  for (const reply of await answered) assert.equal(source(reply), `200 stale ${wide}`);
  // Asked alone two intervals later, the member is its group's wide query here, and its own fill
  // waits for the budget too. Nothing here covers it; the tier's copy of the wide query does.
  // (Answered 503 before c5975be, as in seed 20053.)
  await clock.runUntil(start + 16_500);
  const [alone] = await poll(fresh, [member]);
  assert.equal(source(alone!), `200 stale ${wide}`);
  assert.deepEqual(Object.keys(JSON.parse(alone!.text) as object), ['new', 'read', 'time_spent']);
  assert.deepEqual(
    arrivals.map((call) => call.key),
    [wide],
    'one upstream call: every wait was for the budget',
  );
  await closeAll(pair);
});
