/**
 * An instance sharing a tier keeps time on the tier's clock (src/server/tier/tier-time.ts): the
 * offset one answer leaves, as a table, and the time an instance reads, on the virtual clock.
 * On a real Redis: server-redis.node.test.ts. Instances whose clocks are apart keeping every
 * promise: the simulation, which draws each instance's clock up to 10 s from the tier's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Clock } from '../src/runtime/clock.ts';
import { createCacheHandler } from '../src/server/http/handler.ts';
import { nextOffset, TierTime } from '../src/server/tier/tier-time.ts';
import { capturedLogger } from './helpers/cache-harness.node.ts';
import { VirtualClock } from './helpers/virtual-clock.node.ts';
import { Random } from './simulation/random.ts';
import { API_KEY, encodeNow, SIMULATED_SITES, simulatedUpstream } from './simulation/upstream.ts';

describe("an instance's time on the shared tier's clock", () => {
  test('nextOffset: kept while the answer allows it, else the middle of what the answer allows', () => {
    const table: [
      name: string,
      offset: number,
      sentAt: number,
      receivedAt: number,
      tierAt: number,
      next: number,
    ][] = [
      ['no offset, the tier read its clock during the trip', 0, 1000, 1004, 1002, 0],
      ['no offset, read as the ask left', 0, 1000, 1004, 1000, 0],
      ['no offset, read as the answer came', 0, 1000, 1004, 1004, 0],
      ['the tier ahead by more than the trip', 0, 1000, 1004, 1302, 300],
      ['the tier behind by more than the trip', 0, 1000, 1004, 702, -300],
      ['an offset the trip allows stands', 299, 1000, 1004, 1302, 299],
      ['an offset the answer proves too large', 320, 1000, 1004, 1302, 300],
      ['a slow trip proves nothing of a skew as long as it', 0, 1000, 1400, 1300, 0],
      ['an odd span is rounded', 0, 1000, 1003, 1200, 199],
    ];
    for (const [name, offset, sentAt, receivedAt, tierAt, next] of table)
      assert.equal(nextOffset(offset, sentAt, receivedAt, tierAt), next, name);
  });

  test("the instance reads the tier's time once an answer proves its own clock apart, and says so once", async () => {
    const clock = new VirtualClock(1_000_000);
    const { logger, logs } = capturedLogger('info');
    const reported: number[] = [];
    const time = new TierTime(clock, logger, (offsetMs) => reported.push(offsetMs));
    // The tier's clock runs 750 ms behind; each trip takes 1 ms there and 1 ms back.
    const tierNow = () => clock.now() - 750;
    const askTheTier = async () => {
      const answered = time.ask();
      await clock.advance(1);
      const tierAt = tierNow();
      await clock.advance(1);
      answered(tierAt);
    };

    assert.equal(time.now(), 1_000_000, 'its own clock until the tier answers');
    await askTheTier();
    assert.equal(time.now(), tierNow());
    for (let ask = 0; ask < 5; ask += 1) await askTheTier();
    assert.equal(time.now(), tierNow(), 'later answers agree: nothing moves');
    assert.deepEqual(reported, [-750, -750, -750, -750, -750, -750]);
    const said = logs.map((line) => JSON.parse(line) as { offsetMs?: number; msg: string });
    assert.deepEqual(
      said.map((line) => line.offsetMs),
      [-750],
    );
    assert.match(said[0]!.msg, /which is 750 ms behind its own/);

    // Timers are the clock's own: a wait is as long on either.
    let fired = false;
    time.setTimeout(() => (fired = true), 10);
    await clock.advance(9);
    assert.equal(fired, false);
    await clock.advance(1);
    assert.equal(fired, true);
  });

  test("followed: the tier's clock read at once, again a second later while it cannot say, then every minute", async () => {
    const clock = new VirtualClock(1_000_000);
    const time = new TierTime(clock, capturedLogger('silent').logger);
    const asked: number[] = [];
    let online = false;
    // The tier's clock runs 2 s ahead, and answers at once.
    time.follow(
      {
        time: async (host) => {
          assert.equal(host, 'example.com');
          asked.push(clock.now() - 1_000_000);
          return online ? clock.now() + 2000 : undefined;
        },
      },
      'example.com',
    );
    await clock.advance(0);
    assert.equal(time.now(), clock.now(), 'no answer yet: its own clock');
    online = true;
    await clock.advance(1000);
    assert.equal(time.now(), clock.now() + 2000, "answered: the tier's");
    await clock.advance(3 * 60_000);
    assert.deepEqual(asked, [0, 1000, 61_000, 121_000, 181_000]);
    time.close();
    await clock.advance(10 * 60_000);
    assert.equal(asked.length, 5, 'closed: never asked again');
  });

  test('a fill whose call a step of the time splits is stored fresh, its times all on the new time', async () => {
    // Seed 29169: an instance started while the tier was lost stepped 6.3 s forward when the
    // tier answered, during a fill's call; the copy's freshness, counted from before the step,
    // had run out when it was stored, and the poll was answered `max-age=0`.
    const clock = new VirtualClock();
    let stepMs = 0;
    const instanceTime: Clock = { ...clock, now: () => clock.now() + stepMs };
    const upstream = simulatedUpstream({ clock, latency: { min: 100, max: 100 }, random: new Random(1) });
    const cache = createCacheHandler({
      upstream: 'http://127.0.0.1:9',
      apiKey: API_KEY,
      hosts: [...SIMULATED_SITES],
      logger: capturedLogger('silent').logger,
      clock: instanceTime,
      upstreamTransport: (url, call) => {
        stepMs = 6300;
        return upstream.transport(url, call);
      },
      encodeBody: encodeNow,
      clientLimit: 0,
    });
    const answered = cache.handle(new Request('http://cache.test/live/quickstats/v4/?host=example.com'));
    await clock.advance(200);
    const response = await answered;
    assert.equal(response.status, 200);
    assert.match(response.headers.get('cache-status') ?? '', /; fwd=miss; fwd-status=200; stored; ttl=2$/);
    assert.match(response.headers.get('cache-control') ?? '', /max-age=2\b/);
    assert.equal(
      Date.parse(response.headers.get('last-modified')!),
      Math.floor((clock.now() + 6300) / 1000) * 1000,
    );
    await cache.close();
  });
});
