/**
 * History in the shared tier, on a real redis-server: instances share one history, exactly one
 * of them records each host's minute, and a restart of every instance keeps it. On a virtual
 * clock: Redis's expiries are moved with it (`elapse`), so a minute passes in a moment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HistoryResponse } from '../src/api/index.ts';
import { MINUTE_MS } from '../src/history/samples.ts';
import { startHarness, type Harness } from './helpers/cache-harness.node.ts';
import { jsonResponse, startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.node.ts';
import { REDIS_MISSING } from '../scripts/servers.mjs';
import { startRedis, type RedisProcess } from './helpers/redis-process.node.ts';
import { settleWhileMoving, VirtualClock } from './helpers/virtual-clock.node.ts';

async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const stopAt = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > stopAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('history on a real redis-server', { skip: REDIS_MISSING }, () => {
  let redis: RedisProcess;
  let upstream: FakeUpstream;
  const clock = new VirtualClock(Date.UTC(2026, 10, 23, 14, 5));
  const open: Harness[] = [];

  before(async () => {
    redis = await startRedis();
    upstream = await startFakeUpstream();
    upstream.respond = (_request, _call, index) =>
      jsonResponse({
        data: { metrics: {}, host_metadata: { subdomain_handling: false }, stats: { people: 500 + index } },
      });
  });
  after(async () => {
    await Promise.all(open.map((harness) => harness.close()));
    await upstream?.close();
    await redis?.close();
  });

  async function instances(count: number): Promise<Harness[]> {
    const started = await Promise.all(
      Array.from({ length: count }, () =>
        startHarness(
          {
            redisUrl: redis.url,
            redisPrefix: 'history-test:',
            instances: count,
            clientLimit: 0,
            // Redis's expiries move with the virtual clock (`elapse`); its TIME does not.
            clock,
            followTierClock: false,
            fold: false,
            history: { record: false },
          },
          upstream,
        ),
      ),
    );
    open.push(...started);
    await until(
      async () =>
        (await Promise.all(started.map((harness) => harness.cache.history.online()))).every(Boolean),
      'every instance’s history connected to Redis',
    );
    return started;
  }

  async function stop(harnesses: Harness[]): Promise<void> {
    for (const harness of harnesses) {
      await harness.close();
      open.splice(open.indexOf(harness), 1);
    }
  }

  test('two instances record each host’s minute once between them, and both read it', async () => {
    const pair = await instances(2);
    const calls = upstream.calls.length;
    for (let minute = 0; minute < 3; minute++) {
      // The clock moves while the instances talk to Redis, up to a second: under the upstream timeout.
      const recorded = await settleWhileMoving(
        clock,
        Promise.all(pair.map((harness) => harness.cache.history.recordMinute())),
        1000,
      );
      assert.equal(
        recorded[0]! + recorded[1]!,
        2,
        `minute ${minute}: one sample per host, ${recorded.join(' + ')}`,
      );
      await clock.advance(MINUTE_MS);
      await redis.elapse(MINUTE_MS);
    }
    assert.equal(
      upstream.calls.length - calls,
      6,
      'one upstream call per host per minute for both instances',
    );
    await clock.advance(2000);
    const [a, b] = await Promise.all(
      pair.map(
        async (harness) => (await harness.get('/history/v1/?host=example.com')).json() as HistoryResponse,
      ),
    );
    assert.deepEqual(a!.values, b!.values);
    assert.equal(a!.values.filter((value) => value !== null).length, 3);
    await stop(pair);
  });

  test('restarting every instance keeps the history (it lives in Redis)', async () => {
    const [fresh] = await instances(1);
    const body = (await fresh!.get('/history/v1/?host=news.example.org&range=24h')).json() as HistoryResponse;
    assert.equal(
      body.values.filter((value) => value !== null).length,
      1,
      'three minutes recorded earlier fall into one 5-minute point',
    );
    const today = (await fresh!.get('/history/v1/?host=news.example.org')).json() as HistoryResponse;
    assert.equal(today.values.filter((value) => value !== null).length, 3);
    assert.ok(today.values.filter((value): value is number => value !== null).every((value) => value >= 500));
  });
});
