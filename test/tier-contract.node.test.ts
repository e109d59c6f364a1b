/**
 * One contract for every shared tier: what instances share (entries, fill leases, failure
 * counts, budget windows, cooldowns, fold groups' members) behaves the same whether it lives in
 * one process (the simulation's tier: IpcTier to a Coordinator over an in-process channel, on a
 * virtual clock), in the primary of `--workers` (IpcTier over a real IPC channel to a child
 * process), on a Redis server or on a Redis Cluster. The simulation proves the cache's promises
 * on the first; this suite is why they hold on the others.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/server/http/handler.ts';
import { RedisTier } from '../src/server/tier/redis-tier.ts';
import { MAX_GROUP_MEMBERS, type SharedTier } from '../src/server/tier/shared-tier.ts';
import { storeBody } from '../src/runtime/stored-response.ts';
import { Coordinator } from '../src/server/workers/coordinator.ts';
import { IpcTier } from '../src/server/workers/ipc-tier.ts';
import { REDIS_MISSING } from '../scripts/servers.mjs';
import { startRedis, startRedisCluster } from './helpers/redis-process.node.ts';
import { VirtualClock } from './helpers/virtual-clock.node.ts';
import { forkable } from './helpers/entry-command.node.ts';
import { TierChannel } from './simulation/tier-channel.ts';

interface TierUnderTest {
  tier: SharedTier;
  /** Lets `ms` pass for the tier: the virtual clock moved, or real time waited. */
  pass(ms: number): Promise<void>;
  close(): Promise<void>;
}

const realPass = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Windows long next to a test's takes; where takes still straddle two, {@link takeUntilRefused} sees it. */
const LONG_WINDOW_MS = 10 * 60_000;
let run = 0;

/**
 * Takes `host`'s slots until one is refused and counts the grants in the window of the last one.
 * Windows are aligned to the tier's clock, which is Redis's or a child process's real one for
 * some tiers: the takes may straddle a boundary, where the count starts again, so each grant is
 * placed in its window by the time the tier granted it, never by when the test began.
 */
async function takeUntilRefused(
  tier: SharedTier,
  host: string,
  fills: number,
  windowMs: number,
  burst: number,
) {
  const grantedAt: number[] = [];
  // Bounded: a tier that never refuses fails the count instead of hanging the suite.
  for (let take = 0; take < 4 * burst; take += 1) {
    const answer = await tier.takeSlot(host, fills, windowMs, burst);
    assert.ok(answer, 'the tier answered');
    if (!answer.granted) {
      const lastGrantAt = grantedAt.at(-1) ?? Number.NaN;
      const lastWindowStart = lastGrantAt - (lastGrantAt % windowMs);
      return {
        inLastWindow: grantedAt.filter((at) => at >= lastWindowStart).length,
        lastWindowEnd: lastWindowStart + windowMs,
        lastGrantAt,
        refusal: answer,
      };
    }
    grantedAt.push(answer.at);
  }
  assert.fail(`${4 * burst} slots granted, none refused`);
}

function contract(name: string, start: () => Promise<TierUnderTest>, skip: string | false = false) {
  describe(`shared tier contract: ${name}`, { skip }, () => {
    let t: TierUnderTest;
    /** Fresh names per test, so tests on one server never see each other's keys. */
    let ns = '';
    before(async () => {
      t = await start();
    });
    after(() => t?.close());
    const fresh = () => (ns = `t${(run += 1)}-`);

    test('an entry written is read back whole; an unknown one reads undefined', async () => {
      fresh();
      assert.equal(await t.tier.read(`${ns}missing`), undefined);
      const stored = await storeBody('{"people":42}', { startedAt: 1000, fetchedAt: 1100, freshUntil: 4000 });
      await t.tier.write(`${ns}key`, stored, 60_000);
      const read = await t.tier.read(`${ns}key`);
      assert.ok(read);
      assert.deepEqual(
        { ...read, identity: read.identity.toString(), gzip: read.gzip.length, br: read.br.length },
        { ...stored, identity: stored.identity.toString(), gzip: stored.gzip.length, br: stored.br.length },
      );
    });

    test('a lease is won once; the others are told how long it is held; confirming sets its length', async () => {
      fresh();
      const first = await t.tier.claim(`${ns}key`, 30_000);
      assert.equal(first.kind, 'won');
      const second = await t.tier.claim(`${ns}key`, 30_000);
      assert.equal(second.kind, 'held');
      assert.ok(second.kind === 'held' && second.ms > 0 && second.ms <= 30_000, JSON.stringify(second));
      assert.equal(
        await t.tier.confirm(`${ns}key`, 'not-the-token', 2000),
        false,
        'only the holder confirms',
      );
      assert.equal(await t.tier.confirm(`${ns}key`, first.kind === 'won' ? first.token : '', 2000), true);
      const held = await t.tier.claim(`${ns}key`, 30_000);
      assert.ok(held.kind === 'held' && held.ms <= 2000, JSON.stringify(held));
    });

    test('a lease not renewed expires and is taken over', async () => {
      fresh();
      assert.equal((await t.tier.claim(`${ns}key`, 100)).kind, 'won');
      await t.pass(200);
      assert.equal((await t.tier.claim(`${ns}key`, 100)).kind, 'won');
    });

    test('a failed fill turns the lease into a backoff that doubles per failure, up to the most; a write ends the count', async () => {
      fresh();
      assert.equal(await t.tier.fail(`${ns}key`, 1000, 3000), 1000);
      const during = await t.tier.claim(`${ns}key`, 30_000);
      assert.ok(during.kind === 'backoff' && during.ms <= 1000, JSON.stringify(during));
      assert.equal(await t.tier.fail(`${ns}key`, 1000, 3000), 2000);
      assert.equal(await t.tier.fail(`${ns}key`, 1000, 3000), 3000);
      await t.tier.write(
        `${ns}key`,
        await storeBody('{}', { startedAt: 0, fetchedAt: 0, freshUntil: 0 }),
        60_000,
      );
      assert.equal(
        await t.tier.fail(`${ns}key`, 1000, 3000),
        1000,
        'counted from the start after a good fill',
      );
    });

    test("a backoff ends when the key's site answers again, and its count starts again; a fill's lease stays", async () => {
      fresh();
      assert.equal(await t.tier.fail(`${ns}key`, 1000, 30_000), 1000);
      assert.equal(await t.tier.fail(`${ns}key`, 1000, 30_000), 2000);
      assert.equal((await t.tier.claim(`${ns}key`, 30_000)).kind, 'backoff');
      await t.tier.endBackoff(`${ns}key`);
      const after = await t.tier.claim(`${ns}key`, 30_000);
      assert.equal(after.kind, 'won', 'the backoff ended');
      await t.tier.endBackoff(`${ns}key`);
      assert.equal((await t.tier.claim(`${ns}key`, 30_000)).kind, 'held', "a fill's lease stays");
      assert.equal(await t.tier.fail(`${ns}key`, 1000, 30_000), 1000, 'counted from the start');
      await t.tier.endBackoff(`${ns}never-failed`);
      assert.equal((await t.tier.claim(`${ns}never-failed`, 30_000)).kind, 'won', 'nothing to end');
    });

    test('budget: `fills` slots a window, then a refusal that says when the window ends', async () => {
      fresh();
      const { inLastWindow, lastWindowEnd, lastGrantAt, refusal } = await takeUntilRefused(
        t.tier,
        `${ns}example.com`,
        3,
        LONG_WINDOW_MS,
        3,
      );
      assert.equal(inLastWindow, 3);
      assert.ok(
        !refusal.granted &&
          !refusal.coolingDown &&
          refusal.waitMs > 0 &&
          refusal.waitMs <= lastWindowEnd - lastGrantAt,
        JSON.stringify(refusal),
      );
    });

    test('budget: a burst while the minute is less than half used, never past it', async () => {
      fresh();
      const taken = await takeUntilRefused(t.tier, `${ns}example.com`, 3, LONG_WINDOW_MS / 60, 9);
      assert.equal(taken.inLastWindow, 9, 'a cold dashboard gets a burst of 9 at once');
    });

    test("budget: a calm holds the host to the windows' rate until it ends; a shorter one does not shorten it", async () => {
      fresh();
      const windowMs = LONG_WINDOW_MS / 60;
      const host = `${ns}example.com`;
      await t.tier.calm(host, 30_000);
      await t.tier.calm(host, 100);
      assert.equal((await takeUntilRefused(t.tier, host, 3, windowMs, 9)).inLastWindow, 3, 'no burst');
      assert.equal(
        (await takeUntilRefused(t.tier, `${ns}other.example`, 3, windowMs, 9)).inLastWindow,
        9,
        'another host bursts',
      );
      const short = `${ns}short.example`;
      await t.tier.calm(short, 100);
      await t.pass(200);
      assert.equal((await takeUntilRefused(t.tier, short, 3, windowMs, 9)).inLastWindow, 9, 'the calm ended');
    });

    test('budget: each answer says how long instances that lose the tier wait before going alone', async () => {
      fresh();
      const host = `${ns}example.com`;
      const windowMs = LONG_WINDOW_MS / 60;
      const answers = [];
      for (let i = 0; i < 9; i += 1) answers.push(await t.tier.takeSlot(host, 3, windowMs, 9));
      assert.equal(answers[0]?.aloneHoldMs, 0, 'one call: nothing owed');
      // Nine at once where 3 a window is the rate: two windows' worth owed (aloneHoldMs in host-budget.ts).
      const owed = answers[8]?.aloneHoldMs ?? 0;
      assert.ok(owed > 1.9 * windowMs && owed <= 2 * windowMs, JSON.stringify(answers[8]));
    });

    test("budget: a new query's slot asked for in the window before waits, uncounted, until half a window in", async () => {
      fresh();
      const probe = await t.tier.takeSlot(`${ns}clock.example`, 3, LONG_WINDOW_MS, 3);
      assert.ok(probe?.granted, 'the tier says what time it is');
      // Windows longer than the tier's clock: the one it is in began at 0, and its half is known.
      const early = 4 * probe.at;
      const host = `${ns}example.com`;
      const crossed = await t.tier.takeSlot(host, 3, early, 3, -early);
      assert.ok(crossed && !crossed.granted && !crossed.coolingDown, JSON.stringify(crossed));
      assert.ok(
        crossed.waitMs <= early / 2 - probe.at && crossed.waitMs > early / 2 - probe.at - 60_000,
        'until half a window in',
      );
      assert.equal((await t.tier.takeSlot(host, 3, early, 3, 0))?.granted, true, 'asked for its own window');
      assert.equal(
        (await takeUntilRefused(t.tier, host, 3, early, 3)).inLastWindow,
        2,
        'three in the window with that one: the refusal took no slot',
      );
      const late = Math.floor(1.5 * probe.at);
      assert.equal(
        (await t.tier.takeSlot(`${ns}late.example`, 3, late, 3, -late))?.granted,
        true,
        'past half a window: the clocks disagree, and the slot is taken',
      );
    });

    test("time: the clock the host's budget is counted on, as the tier reads it", async () => {
      fresh();
      const host = `${ns}example.com`;
      const before = await t.tier.time(host);
      const slot = await t.tier.takeSlot(host, 3, 1000, 3);
      const after = await t.tier.time(host);
      assert.ok(slot?.granted && before !== undefined && after !== undefined, 'the tier answered');
      assert.ok(before <= slot.at && slot.at <= after, `${before} ≤ ${slot.at} ≤ ${after}`);
    });

    test('a cooldown blocks every slot of the host until it ends; a shorter one does not shorten it', async () => {
      fresh();
      const host = `${ns}example.com`;
      await t.tier.cooldown(host, 30_000);
      await t.tier.cooldown(host, 1000);
      const answer = await t.tier.takeSlot(host, 3, LONG_WINDOW_MS, 3);
      assert.ok(
        answer && !answer.granted && answer.coolingDown && answer.waitMs > 1000 && answer.waitMs <= 30_000,
        JSON.stringify(answer),
      );
      assert.equal(
        (await t.tier.takeSlot(`${ns}other.example`, 3, LONG_WINDOW_MS, 3))?.granted,
        true,
        'another host is not cooled down',
      );
    });

    test('fold group members count for their keep time, then leave; the group holds the newest 256', async () => {
      fresh();
      const group = `${ns}toppages|host=example.com`;
      await t.tier.join(group, 'a', 60_000);
      await t.tier.join(group, 'b', 60_000);
      await t.tier.join(group, 'short', 100);
      assert.deepEqual((await t.tier.members(group))?.sort(), ['a', 'b', 'short']);
      await t.pass(200);
      assert.deepEqual((await t.tier.members(group))?.sort(), ['a', 'b']);
      const crowd = `${ns}crowd`;
      for (let i = 0; i <= MAX_GROUP_MEMBERS; i += 1) await t.tier.join(crowd, `m${i}`, 60_000 + i);
      const members = (await t.tier.members(crowd))!;
      assert.equal(members.length, MAX_GROUP_MEMBERS);
      assert.ok(
        !members.includes('m0') && members.includes(`m${MAX_GROUP_MEMBERS}`),
        'the one that stops counting first leaves',
      );
    });
  });
}

contract("in process (the simulation's tier)", async () => {
  const clock = new VirtualClock();
  const tier = new IpcTier(
    new TierChannel(clock, { coordinator: new Coordinator(16 << 20, clock), up: true }),
    250,
    clock,
  );
  // Every call waits on the channel's latency: move the clock while it does.
  const moving = (call: () => Promise<unknown>) => async () => {
    const answer = call();
    await clock.advance(10);
    return answer;
  };
  // Every async method of the tier (a new one is wrapped too), not `close` or the `online` getter.
  const methods = Object.entries(Object.getOwnPropertyDescriptors(IpcTier.prototype))
    .filter(([name, { value }]) => typeof value === 'function' && !['constructor', 'close'].includes(name))
    .map(([name]) => name);
  const wrapped = Object.fromEntries(
    methods.map((method) => [
      method,
      (...args: unknown[]) =>
        moving(() =>
          (tier as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(...args),
        )(),
    ]),
  ) as unknown as SharedTier;
  return { tier: wrapped, pass: (ms) => clock.advance(ms), close: async () => tier.close() };
});

contract('the primary of --workers, over a real IPC channel', async () => {
  const { module, execArgv } = forkable(
    fileURLToPath(new URL('./helpers/coordinator-process.node.ts', import.meta.url)),
  );
  const child: ChildProcess = fork(module, { execArgv, serialization: 'advanced', stdio: 'ignore' });
  await new Promise((resolve) => child.once('message', resolve));
  const tier = new IpcTier(child as Required<ChildProcess> & { connected: boolean }, 5000);
  return {
    tier,
    pass: realPass,
    close: async () => {
      tier.close();
      child.kill();
    },
  };
});

async function redisTier(url: string): Promise<TierUnderTest> {
  const tier = new RedisTier({ url, prefix: 'contract:', timeoutMs: 5000, logger: createLogger('silent') });
  for (let tries = 0; !tier.online && tries < 200; tries += 1) await realPass(25);
  return { tier, pass: realPass, close: async () => tier.close() };
}

contract(
  'Redis',
  async () => {
    const redis = await startRedis();
    const under = await redisTier(redis.url);
    return {
      ...under,
      close: async () => {
        await under.close();
        await redis.close();
      },
    };
  },
  REDIS_MISSING,
);

contract(
  'Redis Cluster',
  async () => {
    const cluster = await startRedisCluster(3);
    const under = await redisTier(cluster.url);
    return {
      ...under,
      close: async () => {
        await under.close();
        await cluster.close();
      },
    };
  },
  REDIS_MISSING,
);
