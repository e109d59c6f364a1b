/**
 * History: the typical band on known data, the time-zone arithmetic, the file log across a
 * restart and a torn write, the recorder through the fill cache, and `/history/v1/` under the
 * rules of every route. The Redis tier's history is in history-redis.node.test.ts.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  checkShape,
  HISTORY_METRICS,
  historyResponseSchema,
  type HistoryResponse,
} from '../src/api/index.ts';
import { HISTORY_SHAPE } from '../src/api/response-shapes.ts';
import { FileStore } from '../src/history/file-store.ts';
import { MINUTE_MS, DAY_MS, METRIC_COUNT } from '../src/history/samples.ts';
import { buildHistory, percentile, rangePoints } from '../src/history/series.ts';
import { MemoryStore, withBaseline } from '../src/history/store.ts';
import { checkHostTimeZones } from '../src/history/time-zone-setting.ts';
import { offsetMinutes, startOfLocalDay, weeksEarlier } from '../src/history/time-zone.ts';
import { readSettings } from '../src/server/config/settings.ts';
import { createSimulator } from '../src/simulator/index.ts';
import { parseQuery } from '../src/api/index.ts';
import { startHarness, type Harness } from './helpers/cache-harness.node.ts';
import { settleWhileMoving, VirtualClock } from './helpers/virtual-clock.node.ts';
import { jsonResponse } from './helpers/fake-upstream.node.ts';

const WEEK_MS = 7 * DAY_MS;
/** Monday 2026-11-23 14:05 UTC. */
const MONDAY_1405 = Date.UTC(2026, 10, 23, 14, 5);

function row(people: number): number[] {
  return Array.from({ length: METRIC_COUNT }, (_, index) => (index === 0 ? people : Number.NaN));
}

describe('the typical band', () => {
  it('percentiles interpolate between neighbours (type 7)', () => {
    assert.equal(percentile([10, 20, 30, 40], 0.5), 25);
    assert.equal(percentile([10, 20, 30, 40], 0.1), 13);
    assert.equal(percentile([10, 20, 30, 40], 0.9), 37);
    assert.equal(percentile([7], 0.9), 7);
  });

  it('is the median and 10th–90th percentile of the same weekday and time over the last 4 weeks', async () => {
    const store = new MemoryStore();
    // Week k before: the five minutes 14:05–14:09 hold 100k + minute (so 101..104, 201..204, …).
    for (let week = 1; week <= 4; week++) {
      for (let minute = 0; minute < 5; minute++)
        await store.record(
          'example.com',
          MONDAY_1405 - week * WEEK_MS + minute * MINUTE_MS,
          row(100 * week + minute),
        );
    }
    // Something on a Sunday at the same time must not count.
    await store.record('example.com', MONDAY_1405 - DAY_MS, row(9999));
    const now = MONDAY_1405 + 4 * MINUTE_MS + 30_000;
    const answer = await buildHistory(
      store,
      { host: 'example.com', metric: 'people', range: '24h' },
      'UTC',
      now,
    );
    const point = (MONDAY_1405 - answer.start) / (5 * MINUTE_MS);
    const pool = [
      100, 101, 102, 103, 104, 200, 201, 202, 203, 204, 300, 301, 302, 303, 304, 400, 401, 402, 403, 404,
    ];
    assert.equal(answer.typical.weeks, 4);
    assert.equal(answer.typical.median[point], percentile(pool, 0.5));
    assert.equal(answer.typical.low[point], Math.round(percentile(pool, 0.1) * 10) / 10);
    assert.equal(answer.typical.high[point], Math.round(percentile(pool, 0.9) * 10) / 10);
    // The points before and after hold nothing: gaps, not zeros.
    assert.equal(answer.typical.median[point - 1], null);
    assert.equal(answer.typical.median.length, point + 1, 'the range ends with the current five minutes');
    assert.equal(
      answer.values.every((value) => value === null),
      true,
    );
  });

  it('says how many weeks it stands on when fewer than four have data', async () => {
    const store = new MemoryStore();
    for (const week of [1, 3])
      await store.record('example.com', MONDAY_1405 - week * WEEK_MS, row(50 * week));
    const answer = await buildHistory(
      store,
      { host: 'example.com', metric: 'people', range: 'today' },
      'UTC',
      MONDAY_1405 + 10 * MINUTE_MS,
    );
    assert.equal(answer.typical.weeks, 2);
    const point = (MONDAY_1405 - answer.start) / MINUTE_MS;
    // A 1-minute point pools two minutes either side: only 14:05 holds data, in weeks 1 and 3.
    for (const near of [point - 2, point, point + 2]) assert.equal(answer.typical.median[near], 100);
    assert.equal(answer.typical.median[point - 3], null);
  });

  it('gaps stay gaps: minutes nobody recorded are null, and 5-minute points average only what was recorded', async () => {
    const store = new MemoryStore();
    const bucket = Math.floor(MONDAY_1405 / (5 * MINUTE_MS)) * 5 * MINUTE_MS;
    await store.record('example.com', bucket, row(10));
    await store.record('example.com', bucket + 3 * MINUTE_MS, row(20));
    const answer = await buildHistory(
      store,
      { host: 'example.com', metric: 'people', range: '24h' },
      'UTC',
      bucket + 4 * MINUTE_MS,
    );
    assert.equal(answer.values.at(-1), 15);
    assert.equal(answer.values.at(-2), null);
    assert.equal(answer.typical.weeks, 0);
  });

  it('today starts at local midnight of the host and the band covers the whole day', async () => {
    const answer = await buildHistory(
      new MemoryStore(),
      { host: 'example.com', metric: 'people', range: 'today' },
      'America/New_York',
      MONDAY_1405,
    );
    assert.equal(answer.start, Date.UTC(2026, 10, 23, 5, 0));
    assert.equal(answer.stepSeconds, 60);
    assert.equal(answer.values.length, (MONDAY_1405 - answer.start) / MINUTE_MS + 1);
    assert.equal(answer.typical.median.length, 1440);
    assert.equal(historyResponseSchema.safeParse(answer).success, true);
    assert.equal(checkShape(HISTORY_SHAPE, JSON.parse(JSON.stringify(answer))), true);
  });

  it('follows daylight saving: a 23-hour day, and the same wall time four weeks earlier', () => {
    // Europe/Paris moved to summer time on 2026-03-29.
    const spring = Date.UTC(2026, 2, 29, 12);
    const { start, total } = rangePoints('today', 'Europe/Paris', spring);
    assert.equal(start, Date.UTC(2026, 2, 28, 23));
    assert.equal(total, 23 * 60);
    const afterChange = Date.UTC(2026, 3, 6, 12); // 14:00 CEST, a Monday
    const before = weeksEarlier('Europe/Paris', afterChange, 2); // 14:00 CET two weeks earlier
    assert.equal(before, Date.UTC(2026, 2, 23, 13));
    assert.equal(offsetMinutes('Europe/Paris', afterChange), 120);
    assert.equal(startOfLocalDay('Asia/Kolkata', Date.UTC(2026, 10, 23, 20)), Date.UTC(2026, 10, 23, 18, 30));
  });
});

describe('the simulator backfill', () => {
  const simulator = createSimulator();

  it('follows the simulation it stands in for, within 10 % over a day', () => {
    const from = Date.UTC(2026, 10, 20);
    const backfill = simulator.history('example.com', 'people', from, 1440)!;
    const params = parseQuery('quickstats', new URLSearchParams('host=example.com'));
    assert.ok(params.success);
    let simulated = 0;
    let filled = 0;
    for (let minute = 0; minute < 1440; minute += 30) {
      simulated += simulator.answer('quickstats', params.params, from + minute * MINUTE_MS).data.stats.people;
      filled += backfill[minute]!;
    }
    assert.ok(Math.abs(filled / simulated - 1) < 0.1, `backfill ${filled} vs simulation ${simulated}`);
  });

  it('splits people into every recorded metric, and knows only the hosts it serves', () => {
    const from = Date.UTC(2026, 10, 20, 13);
    const people = simulator.history('example.com', 'people', from, 1)![0]!;
    const parts = ['read', 'write', 'idle'].map(
      (metric) => simulator.history('example.com', metric as 'read', from, 1)![0]!,
    );
    assert.ok(Math.abs(parts.reduce((a, b) => a + b) - people) <= 2);
    for (const metric of HISTORY_METRICS)
      assert.ok(simulator.history('example.com', metric, from, 1)![0]! >= 0, metric);
    assert.equal(simulator.history('elsewhere.com', 'people', from, 1), undefined);
    assert.equal(simulator.timeZone('example.com'), 'Etc/GMT+5');
  });

  it('fills only the minutes before the start that hold no sample', async () => {
    const store = new MemoryStore();
    const start = Date.UTC(2026, 10, 23, 12);
    await store.record('example.com', start - 2 * MINUTE_MS, row(7));
    const filled = withBaseline(store, () => new Float64Array(10).fill(1), start);
    const column = await filled.column('example.com', 0, start - 5 * MINUTE_MS, 10);
    assert.deepEqual([...column], [1, 1, 1, 7, 1, NaN, NaN, NaN, NaN, NaN]);
  });
});

describe('the file log under PULSE_DATA_DIR', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pulse-history-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('keeps every recorded minute across a restart, one segment per host per day', async () => {
    const dir = tempDir();
    const t = Date.UTC(2026, 10, 23, 23, 58);
    let { store } = await FileStore.open(dir, t);
    for (let minute = 0; minute < 4; minute++)
      assert.equal(await store.record('example.com', t + minute * MINUTE_MS, row(minute + 1)), true);
    assert.equal(await store.record('example.com', t, row(99)), false, 'a minute is recorded once');
    await store.close();
    assert.deepEqual(readdirSync(join(dir, 'history', 'example.com')).sort(), [
      '2026-11-23.log',
      '2026-11-24.log',
    ]);

    const reopened = await FileStore.open(dir, t + 5 * MINUTE_MS);
    store = reopened.store;
    assert.equal(reopened.report.samples, 4);
    assert.deepEqual([...(await store.column('example.com', 0, t, 5))], [1, 2, 3, 4, NaN]);
    assert.equal(await store.claim('example.com', t + MINUTE_MS), false);
    assert.equal(await store.claim('example.com', t + 4 * MINUTE_MS), true);
    await store.close();
  });

  it('recovers from a torn final write: the partial line is cut off and appends go on cleanly', async () => {
    const dir = tempDir();
    const t = Date.UTC(2026, 10, 23, 10);
    const { store } = await FileStore.open(dir, t);
    await store.record('example.com', t, row(5));
    await store.record('example.com', t + MINUTE_MS, row(6));
    await store.close();
    const segment = join(dir, 'history', 'example.com', '2026-11-23.log');
    const whole = readFileSync(segment, 'utf8');
    // A crash in the middle of the third line: half of it reached the disk.
    appendFileSync(segment, `[${t + 2 * MINUTE_MS},7,1,`);

    const reopened = await FileStore.open(dir, t + 3 * MINUTE_MS);
    assert.deepEqual(reopened.report.repaired, [segment]);
    assert.equal(readFileSync(segment, 'utf8'), whole);
    await reopened.store.record('example.com', t + 2 * MINUTE_MS, row(8));
    await reopened.store.close();

    const again = await FileStore.open(dir, t + 3 * MINUTE_MS);
    assert.deepEqual(again.report.repaired, []);
    assert.deepEqual([...(await again.store.column('example.com', 0, t, 3))], [5, 6, 8]);
    await again.store.close();
  });

  it('deletes segments older than 35 days, and refuses a directory another live process holds', async () => {
    const dir = tempDir();
    const old = Date.UTC(2026, 9, 1, 12);
    const first = await FileStore.open(dir, old);
    await first.store.record('example.com', old, row(1));
    await first.store.close();
    const later = await FileStore.open(dir, old + 36 * DAY_MS);
    assert.equal(later.report.deleted, 1);
    assert.deepEqual(readdirSync(join(dir, 'history', 'example.com')), []);
    await later.store.close();
    // Another process that is alive (the test runner) holds the directory.
    writeFileSync(join(dir, 'history', 'history.lock'), String(process.ppid));
    await assert.rejects(FileStore.open(dir, old), /in use by process/);
  });
});

describe('/history/v1/ on the cache endpoint', () => {
  const harnesses: Harness[] = [];
  const dirs: string[] = [];
  after(async () => {
    await Promise.all(harnesses.map((harness) => harness.close()));
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  /** Quickstats whose `people` is the upstream call's number, with platforms. */
  const counting = (_request: Request, _call: unknown, index: number) =>
    jsonResponse({
      data: {
        metrics: {},
        host_metadata: { subdomain_handling: false },
        stats: { people: 100 + index, read: 60, new: 7, search: 12, platform: { d: 40, m: 60 } },
      },
    });

  /**
   * On a virtual clock: timeouts, backoffs and the recorder's retries happen where a test moves
   * the clock, not when a busy machine is slow (a 200 ms real upstream timeout once left a gap).
   * Folding is off unless asked for: a fold group gathers for a moment before its call.
   */
  async function start(
    history: Record<string, unknown>,
    { clock = new VirtualClock(Date.UTC(2026, 10, 23, 14, 5)), fold = false } = {},
  ) {
    const harness = await startHarness({
      clock,
      fold,
      history: { record: false, ...history },
      allowedOrigins: ['https://pages.example'],
    });
    harness.upstream.respond = counting;
    harnesses.push(harness);
    return { harness, clock };
  }

  it('records a sample per host per minute through the fill cache, reusing a fresh fill', async () => {
    const { harness, clock } = await start({ timeZones: { '*': 'UTC' } });
    // A widget polls the same key the recorder samples: its fresh fill is reused.
    assert.equal((await harness.get('/live/quickstats/v4/?host=example.com&all_platforms=1')).status, 200);
    const before = harness.upstream.calls.length;
    assert.equal(await harness.cache.history.recordMinute(), 2);
    const sampled = harness.upstream.calls.slice(before).map((call) => call.url.searchParams.get('host'));
    assert.deepEqual(
      sampled,
      ['news.example.org'],
      'example.com reused the widget’s fill; only the other host cost a call',
    );
    assert.equal(await harness.cache.history.recordMinute(), 0, 'the same minute is not recorded twice');
    await clock.advance(MINUTE_MS);
    assert.equal(await harness.cache.history.recordMinute(), 2);

    const reply = await harness.get('/history/v1/?host=example.com&metric=people&range=today');
    assert.equal(reply.status, 200);
    const body = reply.json() as HistoryResponse;
    assert.deepEqual(body.values.slice(-2), [100, 102]);
    const platform = (
      await harness.get('/history/v1/?host=example.com&metric=platform_m')
    ).json() as HistoryResponse;
    assert.deepEqual(platform.values.slice(-2), [60, 60]);
  });

  it('a widget polling a wider quickstats query of the fold group: the sample is derived from its fill, no call of its own', async () => {
    const { harness, clock } = await start({ timeZones: { '*': 'UTC' } }, { fold: true });
    // Each fold group gathers for 100 ms before its call; the upstream timeout is 2.8 s away.
    const widget = harness.get('/live/quickstats/v4/?host=example.com&all_platforms=1&loyalty=1&now_on=1');
    assert.equal((await settleWhileMoving(clock, widget, 1000)).status, 200);
    const before = harness.upstream.calls.length;
    assert.equal(await settleWhileMoving(clock, harness.cache.history.recordMinute(), 1000), 2);
    const sampled = harness.upstream.calls.slice(before).map((call) => call.url.searchParams.get('host'));
    // Its own call, once a minute, took a slot the refresh plan had given a polled query.
    assert.deepEqual(
      sampled,
      ['news.example.org'],
      'example.com derived from the widget’s wide fill; only the other host cost a call',
    );
    const body = (
      await harness.get('/history/v1/?host=example.com&metric=people&range=today')
    ).json() as HistoryResponse;
    assert.equal(body.values.at(-1), 100 + before - 1, 'the minute holds the wide fill’s people');
  });

  it('a sample is not a poll: it never arms the refresh-ahead that keeps polled keys fresh', async () => {
    // Refresh-ahead timers run on this clock: a minute of it passes with no poll.
    const clock = new VirtualClock(Date.UTC(2026, 10, 23, 14, 5));
    const harness = await startHarness({ clock, fold: false, liveTtlMs: 3000, history: { record: false } });
    harnesses.push(harness);
    harness.upstream.respond = counting;
    assert.equal(await harness.cache.history.recordMinute(), 2);
    const calls = harness.upstream.calls.length;
    await clock.advance(MINUTE_MS);
    assert.equal(harness.upstream.calls.length, calls, 'no refill of keys nobody polls');
  });

  it('leaves a gap when no fresh answer can be had, instead of recording an old one', async () => {
    const { harness, clock } = await start({});
    await harness.cache.history.recordMinute();
    harness.upstream.respond = () => jsonResponse({ error: 'down' }, { status: 500 });
    await clock.advance(MINUTE_MS);
    // Three tries, 3 s apart, all failed (a 500, then the backoff): 10 s stays in the minute.
    assert.equal(await settleWhileMoving(clock, harness.cache.history.recordMinute(), 10_000, 1000), 0);
    const body = (await harness.get('/history/v1/?host=example.com')).json() as HistoryResponse;
    assert.equal(body.values.at(-2), 100);
    assert.equal(body.values.at(-1), null);
    const metrics = (await harness.get('/metrics')).text;
    assert.match(metrics, /pulse_history_samples_total\{host="example.com",outcome="recorded"\} 1/);
    assert.match(metrics, /pulse_history_samples_total\{host="example.com",outcome="gap"\} 1/);
  });

  it('keeps history across a restart of the endpoint (file store)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pulse-history-'));
    dirs.push(dir);
    const first = await start({ dataDir: dir });
    await first.harness.cache.history.recordMinute();
    await first.harness.close();
    harnesses.splice(harnesses.indexOf(first.harness), 1);
    await first.clock.advance(10 * MINUTE_MS);
    const second = await start({ dataDir: dir }, { clock: first.clock });
    const body = (await second.harness.get('/history/v1/?host=example.com')).json() as HistoryResponse;
    assert.equal(body.values.at(-11), 100);
    assert.equal(
      body.values.filter((value) => value !== null).length,
      1,
      'the 10 minutes the endpoint was down stay gaps',
    );
  });

  it('follows every rule of the other routes: validation, allowlist, ETag/304, CORS, gzip, cache', async () => {
    const { harness, clock } = await start({});
    const refused = async (query: string, status: number, param: string) => {
      const reply = await harness.get(`/history/v1/?${query}`);
      assert.equal(reply.status, status, query);
      assert.equal((reply.json() as { error: { param: string } }).error.param, param, query);
    };
    await refused('host=example.com&apikey=x', 400, 'apikey');
    await refused('host=example.com&callback=f', 400, 'callback');
    await refused('host=example.com&jsonp=f', 400, 'jsonp');
    await refused('host=example.com&limit=5', 400, 'limit');
    await refused('host=example.com&range=1y', 400, 'range');
    await refused('host=example.com&metric=bogus', 400, 'metric');
    await refused('host=example.com&host=news.example.org', 400, 'host');
    await refused('metric=people', 400, 'host');
    await refused('host=elsewhere.com', 403, 'host');
    assert.equal((await harness.get('/history/v1/?host=example.com', { method: 'POST' })).status, 405);

    const first = await harness.get('/history/v1?host=example.com', {
      headers: { origin: 'https://pages.example', 'accept-encoding': 'gzip' },
    });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('access-control-allow-origin'), 'https://pages.example');
    assert.match(first.cacheStatus, /fwd=miss/);
    const etag = first.headers.get('etag')!;
    const raw = await fetch(`${harness.url}/history/v1/?host=example.com`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(raw.headers.get('content-encoding'), 'gzip');
    assert.equal(
      (JSON.parse(await raw.text()) as HistoryResponse).host,
      'example.com',
      'fetch inflates the stored gzip',
    );
    const again = await harness.get('/history/v1/?host=example.com', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.match(again.cacheStatus, /hit/);
    assert.match(again.headers.get('cache-control')!, /max-age=\d+/);
    await clock.advance(MINUTE_MS);
    assert.match(
      (await harness.get('/history/v1/?host=example.com')).cacheStatus,
      /hit/,
      'kept until the recorder has written the new minute',
    );
    await clock.advance(2000);
    assert.match(
      (await harness.get('/history/v1/?host=example.com')).cacheStatus,
      /fwd=miss/,
      'recomputed once the minute is recorded',
    );
  });
});

describe('history settings', () => {
  it('reads PULSE_DATA_DIR and PULSE_HOST_TZ, and refuses a zone that does not exist', () => {
    const result = readSettings(['serve', '--host-tz', 'example.com=Europe/Paris,America/New_York'], {
      PULSE_DATA_DIR: '/var/lib/pulse',
    });
    assert.ok('settings' in result);
    assert.equal(result.settings.dataDir, '/var/lib/pulse');
    assert.deepEqual(result.settings.hostTimeZones, {
      'example.com': 'Europe/Paris',
      '*': 'America/New_York',
    });
    const bad = readSettings(['serve'], { PULSE_HOST_TZ: 'example.com=Mars/Olympus' });
    assert.ok('errors' in bad);
    assert.match(bad.errors[0]!, /PULSE_HOST_TZ \(--host-tz\)/);
    assert.throws(() => checkHostTimeZones(['not a host=UTC']), /site ID/);
  });
});
