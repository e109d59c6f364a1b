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
