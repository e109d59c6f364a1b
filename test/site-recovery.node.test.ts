/**
 * The end of an outage (src/server/cache/site-recovery.ts): the site's first answer after its
 * failures ends the backoffs they started, here and on the shared tier; a key whose answer came
 * and was refused keeps its own. The decisions as tables, then an outage on virtual time, with
 * one instance and with two sharing a tier.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KeyState } from '../src/server/cache/polled-keys.ts';
import { backoffToEnd, failedForWantOfAnswer } from '../src/server/cache/site-recovery.ts';
import type { FailureReason } from '../src/server/upstream.ts';
import { closeAll, startVirtualCluster } from './helpers/virtual-cache.node.ts';

describe('which failures an answer for another key of the site ends', () => {
  const cases: [FailureReason, number | undefined, boolean][] = [
    ['network', undefined, true],
    ['timeout', undefined, true],
    ['cut', 200, true],
    ['rate_limited', 429, true],
    ['status', 502, true],
    ['status', 503, true],
    ['status', 404, false],
    ['status', 400, false],
    ['status', undefined, false],
    ['bad_json', 200, false],
    ['invalid', 200, false],
    ['content_type', 200, false],
    ['too_large', 200, false],
    ['redirect', 301, false],
    ['closed', undefined, false],
  ];
  for (const [reason, status, outage] of cases)
    test(`${reason}${status === undefined ? '' : ` (${status})`}: ${outage ? 'for want of an answer' : "the key's own"}`, () => {
      assert.equal(failedForWantOfAnswer(reason, status), outage);
    });
});

describe("what the site's answer ends of a key's backoff", () => {
  const NOW = 10_000;
  const state = (fields: Partial<KeyState>): KeyState => ({
    lastRequestedAt: 0,
    failures: 0,
    retryAt: 0,
    waitingForBudget: false,
    filling: false,
    ...fields,
  });
  const cases: [string, Partial<KeyState>, ReturnType<typeof backoffToEnd>][] = [
    ['no backoff', {}, 'none'],
    ['a backoff already over', { failures: 3, retryAt: NOW, outage: true }, 'none'],
    [
      'its own failures, for want of an answer',
      { failures: 3, retryAt: NOW + 1, outage: true },
      'everywhere',
    ],
    ['learned from the tier (another instance failed it)', { retryAt: NOW + 1, outage: true }, 'here'],
    ['its answer was refused', { failures: 3, retryAt: NOW + 30_000, outage: false }, 'none'],
    ['its answer could not be read', { failures: 1, retryAt: NOW + 1000, invalid: true }, 'none'],
  ];
  for (const [name, fields, end] of cases)
    test(`${name}: ${end}`, () => assert.equal(backoffToEnd(state(fields), NOW), end));
});

const TICK = 3000;
const PATHS = [
  '/live/quickstats/v4/?all_platforms=1&host=example.com',
  '/live/referrers/v3/?host=example.com&limit=5',
  '/live/top_geo/v1/?host=example.com&limit=5',
  '/live/summary/v3/?host=example.com&keys=new',
];
/** The outage: each query's calls fail from a moment of its own (so their backoffs fall apart) until one end. */
const DOWN_FROM_S = [30, 37, 44, 51];
const DOWN_UNTIL_S = 120;
/** A query's upstream path (each of PATHS asks a route of its own). */
const routeOf = (path: string) => path.slice(0, path.indexOf('?'));

/**
 * A page polls PATHS on the 3 s grid for 180 s through `count` instances (in turn), while the
 * upstream refuses connections for each query from its DOWN_FROM_S until DOWN_UNTIL_S. Answers,
 * for each query, when its first good call after the outage came, and when the first of all did.
 */
async function outage(count: number) {
  let start = 0;
  const instances = startVirtualCluster(count, {}, 1, (at, url) => {
    const index = PATHS.findIndex((path) => url.pathname === routeOf(path));
    const since = (at - start) / 1000;
    return since >= DOWN_FROM_S[index]! && since < DOWN_UNTIL_S ? 'down' : undefined;
  });
  const { clock } = instances[0]!;
  start = Math.ceil(clock.now() / TICK) * TICK;
  const statuses: number[] = [];
  let next = 0;
  for (let tick = start; tick < start + 180_000; tick += TICK) {
    await clock.runUntil(tick + 30);
    const replies = Promise.all(PATHS.map((path) => instances[(next += 1) % count]!.get(path)));
    await clock.advance(1000);
    statuses.push(...(await replies).map((reply) => reply.status));
  }
  await closeAll(instances);
  const back = start + DOWN_UNTIL_S * 1000;
  const firstGood = PATHS.map(
    (path) =>
      instances[0]!.arrivals.find(
        (call) => call.at >= back && call.outcome === 'ok' && call.key.startsWith(`${routeOf(path)}?`),
      )?.at ?? Number.POSITIVE_INFINITY,
  );
  const failedCalls = PATHS.map(
    (path) =>
      instances[0]!.arrivals.filter(
        (call) => call.outcome === 'fault' && call.key.startsWith(`${routeOf(path)}?`),
      ).length,
  );
  return { firstGood, first: Math.min(...firstGood), statuses, failedCalls };
}

for (const count of [1, 2])
  test(`${count === 1 ? 'one instance' : 'two instances sharing a tier'}: after an outage, every query of the site is filled within two ticks of the site's first answer`, async () => {
    const { firstGood, first, statuses, failedCalls } = await outage(count);
    assert.ok(
      failedCalls.every((calls) => calls >= 3),
      `every query backed off more than once: ${failedCalls.join(', ')} failed calls`,
    );
    assert.ok(Number.isFinite(first), 'the site answered after the outage');
    for (const [index, at] of firstGood.entries())
      assert.ok(
        at <= first + 2 * TICK,
        `${PATHS[index]}: filled ${((at - first) / 1000).toFixed(3)} s after the site's first answer`,
      );
    // Every poll had a copy to answer, stale during the outage: never an error.
    assert.deepEqual([...new Set(statuses)], [200]);
  });
