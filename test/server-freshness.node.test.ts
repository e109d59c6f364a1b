/**
 * Refresh-ahead on the real 3 s wall-clock grid: widgets poll at multiples of 3 s, and the
 * cache should have refilled just before each tick, not one tick earlier. The fake upstream
 * answers in 200 ms and stamps each body with the moment it answered.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { LIVE_TTL_MS } from '../src/api/index.ts';
import { startHarness } from './helpers/cache-harness.node.ts';
import { validResponse } from './helpers/fake-upstream.node.ts';

const UPSTREAM_LATENCY_MS = 200;
const TICKS = 3;
const POLLERS = 4;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

test('pollers aligned on the 3 s grid get data fetched less than a second before their tick', async () => {
  const h = await startHarness();
  after(() => h.close());
  h.upstream.respond = async (request, call, index) => {
    await new Promise((resolve) => setTimeout(resolve, UPSTREAM_LATENCY_MS));
    return validResponse(request, call, index);
  };
  const path = '/live/quickstats/v4/?host=example.com';
  assert.equal((await h.get(path)).status, 200);

  const ageHeaders: number[] = [];
  const dataAges: number[] = [];
  for (let tick = 0; tick < TICKS; tick += 1) {
    const at = Math.ceil((Date.now() + 1) / LIVE_TTL_MS) * LIVE_TTL_MS;
    await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
    const polledAt = Date.now();
    const replies = await Promise.all(Array.from({ length: POLLERS }, () => h.get(path)));
    for (const reply of replies) {
      assert.equal(reply.status, 200);
      ageHeaders.push(Number(reply.headers.get('age')));
      dataAges.push(polledAt - (reply.json() as { data: { metrics: { servedAt: number } } }).data.metrics.servedAt);
    }
  }
  console.log(`freshness: median Age ${median(ageHeaders)} s (${ageHeaders.join(' ')}); median data age at the tick ${median(dataAges)} ms (${dataAges.join(' ')}); ${h.upstream.calls.length} upstream calls for ${TICKS} ticks`);
  assert.ok(median(ageHeaders) <= 1, `median Age ${median(ageHeaders)}`);
  assert.ok(median(dataAges) < 1000, `median data age ${median(dataAges)} ms`);
  assert.ok(h.upstream.calls.length <= TICKS + 2, `${h.upstream.calls.length} calls: one per tick at most`);
});
