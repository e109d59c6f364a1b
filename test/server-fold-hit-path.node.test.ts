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

test('a wide query answered only on the hit path of one instance stays in its fold group on the other', async () => {
  const [a, b] = startVirtualCluster(2);
  const { clock } = a!;
  const start = Math.ceil((clock.now() + 500) / TICK) * TICK;
  const ticks = 12;
  const narrowAnswers: string[] = [];
  const wideVia = new Set<string>();
  const dashboard = (async () => {
    for (let n = 0; n < ticks; n += 1) {
      await clock.sleep(start + n * TICK + 30 - clock.now());
      // At first a serves both queries of the group; then the wide one reaches only b (a
      // dashboard's connections landing on other workers), which knows it from the tier.
      const [narrow, wide] = await Promise.all([
        nodeGet(a!, NARROW),
        nodeGet(n < 4 ? a! : b!, WIDE),
        nodeGet(b!, OTHER),
      ]);
      if (n >= 4) {
        narrowAnswers.push(`tick ${n}: ${narrow.cacheStatus}`);
        wideVia.add(wide.via);
      }
    }
  })();
  await clock.runUntil(start + ticks * TICK + 10_000);
  await dashboard;
  await closeAll([a!, b!]);

  // The scenario is the one meant: b answered the wide query on its hit path.
  assert.ok(wideVia.has('hit-path'), `the wide query was answered by b's ${[...wideVia]}`);
  for (const answer of narrowAnswers)
    assert.match(
      answer,
      /key="\/live\/toppages\/v3\/\?host=example\.com&limit=10"/,
      narrowAnswers.join('\n'),
    );
  const narrowCalls = [a!, b!]
    .flatMap((instance) => upstreamLogLines(instance.logs))
    .filter((line) => line.route === 'toppages' && line.query === 'host=example.com&limit=5');
  assert.deepEqual(
    narrowCalls.map((line) => line.sentAt - start),
    [],
    'the narrow query is never filled apart',
  );
});
