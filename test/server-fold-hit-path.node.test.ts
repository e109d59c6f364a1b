/**
 * Two instances sharing a tier, requests taken as node:http takes them (the hit path first, then
 * the Web handler), on virtual time. An instance that answers a fold group's wide query only on
 * the hit path (it knows the key from the tier's poll list, so it never looked it up) still keeps
 * it a member of the group: otherwise the tier forgot it after two intervals, the other instance's
 * group shrank to the narrow query alone, and that instance filled the narrow query apart, as a
 * new query (with unmetered new queries about, it waited `maxWaitMs` and answered stale).
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import { upstreamLogLines } from './helpers/cache-harness.node.ts';
import { closeAll, startVirtualCluster, type VirtualCache } from './helpers/virtual-cache.node.ts';

const TICK = 3000;
const WIDE = '/live/toppages/v3/?host=example.com&limit=10';
const NARROW = '/live/toppages/v3/?host=example.com&limit=5';
const OTHER = '/live/quickstats/v4/?host=example.com';

/** One GET as node:http serves it: the hit path if it answers, else the Web handler. */
async function nodeGet(
  instance: VirtualCache,
  path: string,
): Promise<{ via: 'hit-path' | 'web'; cacheStatus: string | null }> {
  const headers: Record<string, string> = {};
  const req = {
    method: 'GET',
    url: path,
    rawHeaders: [],
    headers: {},
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  const res = {
    writeHead(_status: number, lines: string[]) {
      for (let at = 0; at < lines.length; at += 2) headers[lines[at]!] = lines[at + 1]!;
    },
    end() {},
  } as unknown as ServerResponse;
  if (instance.cache.serveHit(req, res))
    return { via: 'hit-path', cacheStatus: headers['cache-status'] ?? null };
  const reply = await instance.get(path);
  return { via: 'web', cacheStatus: reply.headers.get('cache-status') };
}

/**
 * Two instances; `poll(n)` is the dashboard's requests of tick n, 30 ms after it, for 12 ticks.
 * Resolves once all ran and the instances closed, with the ticks' start and the narrow query's
 * upstream calls (ms after the start).
 */
async function dashboardOnTwo(
  poll: (n: number, a: VirtualCache, b: VirtualCache) => Promise<void>,
): Promise<{ narrowCalls: number[] }> {
  const [a, b] = startVirtualCluster(2);
  const { clock } = a!;
  const start = Math.ceil((clock.now() + 500) / TICK) * TICK;
  const ticks = 12;
  const dashboard = (async () => {
    for (let n = 0; n < ticks; n += 1) {
      await clock.sleep(start + n * TICK + 30 - clock.now());
      await poll(n, a!, b!);
    }
  })();
  await clock.runUntil(start + ticks * TICK + 10_000);
  await dashboard;
  await closeAll([a!, b!]);
  const narrowCalls = [a!, b!]
    .flatMap((instance) => upstreamLogLines(instance.logs))
    .filter((line) => line.route === 'toppages' && line.query === 'host=example.com&limit=5')
    .map((line) => line.sentAt - start);
  return { narrowCalls };
}

/** Each answer names the wide query it was derived from. */
function assertFoldedFromWide(answers: readonly string[]): void {
  for (const answer of answers)
    assert.match(answer, /key="\/live\/toppages\/v3\/\?host=example\.com&limit=10"/, answers.join('\n'));
}

test('a wide query answered only on the hit path of one instance stays in its fold group on the other', async () => {
  const narrowAnswers: string[] = [];
  const wideVia = new Set<string>();
  const { narrowCalls } = await dashboardOnTwo(async (n, a, b) => {
    // At first a serves both queries of the group; then the wide one reaches only b (a
    // dashboard's connections landing on other workers), which knows it from the tier.
    const [narrow, wide] = await Promise.all([
      nodeGet(a, NARROW),
      nodeGet(n < 4 ? a : b, WIDE),
      nodeGet(b, OTHER),
    ]);
    if (n >= 4) {
      narrowAnswers.push(`tick ${n}: ${narrow.cacheStatus}`);
      wideVia.add(wide.via);
    }
  });

  // The scenario is the one meant: b answered the wide query on its hit path.
  assert.ok(wideVia.has('hit-path'), `the wide query was answered by b's ${[...wideVia]}`);
  assertFoldedFromWide(narrowAnswers);
  assert.deepEqual(narrowCalls, [], 'the narrow query is never filled apart');
});

test("a query folded alone on one instance joins the wider member polled on another: the hit path leaves it to the group's wide fill", async () => {
  const narrowAnswers: string[] = [];
  const { narrowCalls } = await dashboardOnTwo(async (n, a, b) => {
    // a knows the narrow query alone for two ticks, and folds it by itself; then a page polls
    // the wide one on b (seed 2314: three instances, a dashboard's summary queries). a's sync
    // with the tier at tick 3 brings the wide member.
    const [narrow] = await Promise.all([nodeGet(a, NARROW), ...(n >= 2 ? [nodeGet(b, WIDE)] : [])]);
    if (n >= 4) narrowAnswers.push(`tick ${n} via ${narrow.via}: ${narrow.cacheStatus}`);
  });

  assertFoldedFromWide(narrowAnswers);
  // Its last poll of its own key (tick 3) keeps it in the tier's polled keys for two intervals,
  // so the plan made after tick 4 still refills it once, for tick 5; none after.
  assert.deepEqual(
    narrowCalls.filter((at) => at >= 5 * TICK),
    [],
    `the narrow query is not filled apart once the group is wider (calls at ${narrowCalls.join(', ')} ms)`,
  );
});
