/**
 * Issue 27 on virtual time: a newsroom's dashboard of 6 queries polled on the 3 s grid while one
 * client asks a new `toppages?author=x<N>` every 200 ms. Established queries come first: the
 * dashboard's data stays as young as without the sprayer, and the site's budget holds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxInSlidingWindow, upstreamLogLines } from './helpers/cache-harness.node.ts';
import { DASHBOARD_QUERIES } from './helpers/dashboard-queries.node.ts';
import {
  closeAll,
  startVirtualCache,
  startVirtualCluster,
  type VirtualCache,
} from './helpers/virtual-cache.node.ts';

const TICK = 3000;
const DASHBOARD = DASHBOARD_QUERIES.slice(0, 6);
/** Measured after the first 20 s, as the issue measured, for 80 s: spraying for 90 s, past a whole sliding minute. */
const WARM_UP_MS = 20_000;
const RUN_MS = 100_000;

interface Run {
  /** `Age` of each dashboard answer after the warm-up, seconds. */
  ages: number[];
  dashboardStatuses: Map<number, number>;
  sprayerStatuses: Map<number, number>;
  mostGrantsInAMinute: number;
}

function count(statuses: Map<number, number>, status: number): void {
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** The dashboard on the grid and the sprayer every 200 ms; each request goes to an instance in turn. */
async function attack(instances: readonly VirtualCache[]): Promise<Run> {
  const { clock } = instances[0]!;
  let next = 0;
  const get = (path: string) => instances[(next += 1) % instances.length]!.get(path);
  const start = Math.ceil((clock.now() + 500) / TICK) * TICK;
  const stopAt = start + RUN_MS;
  const run: Run = {
    ages: [],
    dashboardStatuses: new Map(),
    sprayerStatuses: new Map(),
    mostGrantsInAMinute: 0,
  };
  const dashboard = (async () => {
    for (let tick = start; tick < stopAt; tick += TICK) {
      await clock.sleep(tick + 30 - clock.now());
      const replies = await Promise.all(DASHBOARD.map(get));
      for (const reply of replies) {
        count(run.dashboardStatuses, reply.status);
        if (tick - start >= WARM_UP_MS) run.ages.push(Number(reply.headers.get('age')));
      }
    }
  })();
  // The sprayer begins once the dashboard is established, and never waits for an answer.
  const sprayer = (async () => {
    const asked: Promise<void>[] = [];
    await clock.sleep(start + 10_000 - clock.now());
    for (let n = 0; clock.now() < stopAt; n += 1) {
      asked.push(
        get(`/live/toppages/v3/?host=example.com&author=x${n}`).then((reply) =>
          count(run.sprayerStatuses, reply.status),
        ),
      );
      await clock.sleep(200);
    }
    await Promise.all(asked);
  })();
  await clock.runUntil(stopAt + 10_000);
  await Promise.all([dashboard, sprayer]);
  await closeAll(instances);
  const grants = instances.flatMap((instance) =>
    upstreamLogLines(instance.logs).map((line) => line.grantedAt),
  );
  run.mostGrantsInAMinute = maxInSlidingWindow(grants, 60_000);
  assert.ok(
    maxInSlidingWindow(
      instances[0]!.arrivals.map((arrival) => arrival.at),
      60_000,
    ) < 200,
    'the upstream never sees its limit reached',
  );
  return run;
}

function assertDashboardFresh(run: Run): void {
  const sorted = [...run.ages].sort((a, b) => a - b);
  const summary = `ages median ${percentile(sorted, 0.5)} / p90 ${percentile(sorted, 0.9)} / max ${sorted.at(-1)} s; dashboard ${JSON.stringify([...run.dashboardStatuses])}, sprayer ${JSON.stringify([...run.sprayerStatuses])}, ${run.mostGrantsInAMinute} grants in the busiest minute`;
  assert.equal(run.ages.length, DASHBOARD.length * Math.ceil((RUN_MS - WARM_UP_MS) / TICK), summary);
  assert.deepEqual([...run.dashboardStatuses.keys()], [200], summary);
  assert.ok(percentile(sorted, 0.5) <= 1, summary);
  assert.ok(percentile(sorted, 0.9) <= 2, summary);
  assert.ok(run.mostGrantsInAMinute <= 183, summary);
  // The sprayer was answered, from what the dashboard left: not starved to nothing either.
  assert.ok((run.sprayerStatuses.get(200) ?? 0) > 0, summary);
}

test('one instance: a client asking a new query every 200 ms leaves a 6-query dashboard fresh', async () => {
  assertDashboardFresh(await attack([startVirtualCache()]));
});

test('two instances sharing a tier: the same, whichever instance each request reaches', async () => {
  assertDashboardFresh(await attack(startVirtualCluster(2)));
});
