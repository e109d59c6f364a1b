/**
 * Three cache instances sharing a tier as `--workers` does (IpcTier to one Coordinator), on a
 * virtual clock, polled on the 3 s grid by widgets whose requests land on any instance: the
 * refresh plans agree slot for slot, and the shared budget holds. (The real processes of
 * `--workers` are tested in server-workers.node.test.ts; timing is proven here.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxInSlidingWindow, upstreamLogLines } from './helpers/cache-harness.node.ts';
import { closeAll, startVirtualCluster, type VirtualCache } from './helpers/virtual-cache.node.ts';

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
