/**
 * Refresh-ahead on the 3 s wall-clock grid, on a virtual clock: widgets poll at multiples of
 * 3 s, and the cache should have refilled just before each tick, not one tick earlier. The
 * simulated upstream answers in 20–150 ms.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIVE_TTL_MS } from '../src/api/index.ts';
import { upstreamLogLines } from './helpers/cache-harness.node.ts';
import { startVirtualCache } from './helpers/virtual-cache.node.ts';
import { moveUntilSettled } from './helpers/virtual-clock.node.ts';

const TICKS = 20;
const POLLERS = 4;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

test('pollers aligned on the 3 s grid get data fetched less than a second before their tick', async () => {
  const v = startVirtualCache();
  const path = '/live/quickstats/v4/?host=example.com';
  const first = v.get(path);
  await v.clock.advance(1000);
  assert.equal((await first).status, 200);

  const ageHeaders: number[] = [];
  const dataAges: number[] = [];
  for (let tick = 0; tick < TICKS; tick += 1) {
    await v.clock.runUntil(Math.ceil((v.clock.now() + 1) / LIVE_TTL_MS) * LIVE_TTL_MS);
    const polledAt = v.clock.now();
    const replies = Promise.all(Array.from({ length: POLLERS }, () => v.get(path)));
    await v.clock.advance(0);
    for (const reply of await replies) {
      assert.equal(reply.status, 200);
      assert.match(
        reply.headers.get('cache-status')!,
        /^pulse-widgets; hit/,
        'answered from the refill made for this tick',
      );
      ageHeaders.push(Number(reply.headers.get('age')));
      const answered = upstreamLogLines(v.logs)
        .filter((line) => line.sentAt + line.ms <= polledAt)
        .map((line) => line.sentAt + line.ms);
      dataAges.push(polledAt - Math.max(...answered));
    }
  }
  const calls = upstreamLogLines(v.logs).length;
  assert.ok(median(ageHeaders) <= 1, `median Age ${median(ageHeaders)} (${ageHeaders.join(' ')})`);
  // The first tick after the cold fill may read that fill (two fills of a key stay two thirds
  // of an interval apart, plan/refresh-plan.ts); every tick after it reads its own refill.
  assert.ok(
    dataAges.slice(0, POLLERS).every((age) => age < LIVE_TTL_MS),
    `first tick: ${dataAges.slice(0, POLLERS).join(' ')} ms`,
  );
  assert.ok(Math.max(...dataAges.slice(POLLERS)) < 1000, `data ages at the tick: ${dataAges.join(' ')} ms`);
  assert.ok(calls <= TICKS + 2, `${calls} calls: one per tick at most`);
  const closed = v.cache.close();
  await v.clock.advance(10_000);
  await closed;
});

// Pages poll on their own clock's 3 s grid: one whose clock runs behind the cache's polls that
// much after every tick. When the plan judged keys by the tick alone, a key such a page
// refilled off the plan at its poll was fresh just past the next tick, skipped by the plan, and
// run out at the page's next poll: stale, and another fill off the plan, every tick (1 s behind:
// 88 of 90 answers stale). The last case is a page a little ahead.
for (const behind of [400, 1000, 1500, 2000, 2500, -100]) {
  const name = behind < 0 ? `${-behind} ms ahead of` : `${behind} ms behind`;
  test(`a page whose clock runs ${name} the cache's: every answer a hit from its third tick`, async () => {
    // Five queries: three take the last budget window before the tick, two the one before it.
    const paths = [
      '/live/quickstats/v4/?host=example.com',
      '/live/referrers/v3/?host=example.com&limit=5',
      '/live/summary/v3/?host=example.com&keys=new',
      '/live/top_geo/v1/?host=example.com&limit=5',
      '/live/toppages/v3/?host=example.com&limit=10',
    ];
    // The middle window's refills start 1.4 s before the tick: the page reads them that much
    // older, and later by how far behind it is.
    const oldest = Math.floor((behind + 1400) / 1000);
    const v = startVirtualCache();
    const answers: string[] = [];
    await v.clock.runUntil(1504);
    await moveUntilSettled(v.clock, Promise.all(paths.map((path) => v.get(path))), 2000);
    for (let tick = 0; tick < TICKS; tick += 1) {
      await v.clock.runUntil(Math.ceil((v.clock.now() + 1 - behind) / LIVE_TTL_MS) * LIVE_TTL_MS + behind);
      const replies = await moveUntilSettled(v.clock, Promise.all(paths.map((path) => v.get(path))), 2000);
      for (const [index, reply] of replies.entries()) {
        assert.equal(reply.status, 200);
        if (tick >= 2)
          answers.push(
            `${tick} ${paths[index]} ${reply.headers.get('cache-status')} age=${reply.headers.get('age')}`,
          );
      }
    }
    const stale = answers.filter((line) => !/ pulse-widgets; hit/.test(line));
    assert.deepEqual(stale, [], 'from the third tick, every answer a hit');
    const old = answers.filter((line) => Number(line.split('age=')[1]) > oldest);
    assert.deepEqual(old, [], `no data older than ${oldest} s`);
    assert.ok(upstreamLogLines(v.logs).length <= paths.length * (TICKS + 1), 'one call per query and tick');
    const closed = v.cache.close();
    await v.clock.advance(10_000);
    await closed;
  });
}
