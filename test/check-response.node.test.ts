/**
 * The browser's zod-free reader must read exactly as the zod schemas do: the same verdict and
 * the same value (unusable optional parts dropped) over the simulator's answers and thousands
 * of seeded mutations of them; and it names each difference with its JSON path.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import {
  checkResponse,
  Failure,
  readDifferences,
  readResponse,
  registerShape,
  ROUTE_NAMES,
  routes,
  type RouteName,
} from '../src/api/index.ts';
import { RESPONSE_SHAPES } from '../src/api/response-shapes.ts';
import { responseShapesSource } from '../scripts/generate-response-shapes.ts';
import { mutate, seededRandom } from './helpers/mutations.ts';
import { simulatorBody } from './helpers/simulator-bodies.ts';

const SEED = Number(process.env.PULSE_PROPERTY_SEED ?? 23);

/** zod's reading as JSON (a dropped optional field may be left as `undefined` there, which JSON drops). */
function zodReading(route: RouteName, body: unknown): { ok: boolean; value?: unknown } {
  const result = routes[route].response.safeParse(body);
  return result.success ? { ok: true, value: JSON.parse(JSON.stringify(result.data)) } : { ok: false };
}

/** Bodies that lack or break what each route needs to show anything: both readers refuse them. */
const ESSENTIAL_BREAKS: Record<RouteName, readonly unknown[]> = {
  toppages: [{}, { pages: {} }, { pages: null }, [], 'x'],
  summary: [[], 'x', null, 3],
  referrers: [{}, { referrers: [] }, { referrers: 3 }],
  top_geo: [{}, { geo: [] }, { geo: null }],
  quickstats: [{}, { data: {} }, { data: { stats: [] } }, { data: { stats: null } }, { data: [] }],
  raw_data: [{}, { data: {} }, { status: 'success' }],
};

describe('readResponse before any element registers a shape', () => {
  it('reads no route: a body it cannot read is not taken as usable', () => {
    assert.equal(checkResponse('summary', {}), false);
  });
});

describe('readResponse reads as the zod schemas do', () => {
  before(() => {
    for (const route of ROUTE_NAMES) registerShape(route, RESPONSE_SHAPES[route]);
  });

  it('the generated shapes are up to date with src/api/responses.ts', () => {
    const committed = readFileSync(new URL('../src/api/response-shapes.ts', import.meta.url), 'utf8');
    assert.equal(committed, responseShapesSource(), 'run `npm run generate:shapes`');
  });

  for (const route of ROUTE_NAMES) {
    it(`on ${route}: the simulator's answer and 400 seeded mutations of it (seed ${SEED})`, () => {
      const valid = simulatorBody(route);
      const value = readResponse(route, valid);
      assert.ok(!(value instanceof Failure));
      assert.deepEqual(value, zodReading(route, valid).value);
      assert.deepEqual(
        readDifferences(RESPONSE_SHAPES[route], valid).differences,
        [],
        'the simulator sends nothing that is dropped',
      );
      const next = seededRandom(SEED * 7919 + route.length);
      let dropped = 0;
      for (let trial = 0; trial < 400; trial++) {
        const { body, description } = mutate(valid, next);
        const zod = zodReading(route, body);
        const ours = readResponse(route, body);
        const usable = !(ours instanceof Failure);
        const where = `seed ${SEED}, trial ${trial}, ${description}`;
        assert.equal(
          usable,
          zod.ok,
          `${where}: zod ${zod.ok ? 'accepts' : 'refuses'}, readResponse does not`,
        );
        const reported = readDifferences(RESPONSE_SHAPES[route], body);
        assert.equal(reported.ok, usable, `${where}: the reporting walk reads as the quiet one`);
        if (usable)
          assert.deepEqual(JSON.parse(JSON.stringify(ours)), zod.value, `${where}: both keep the same value`);
        if (usable && reported.ok)
          assert.deepEqual(reported.value, ours, `${where}: the reporting walk keeps the same value`);
        if (usable && reported.differences.length > 0) dropped++;
      }
      assert.ok(dropped > 50, `mutations must exercise dropping (${dropped} bodies had something dropped)`);
    });

    it(`on ${route}: refuses what breaks an essential field, as zod does`, () => {
      for (const body of ESSENTIAL_BREAKS[route]) {
        assert.equal(zodReading(route, body).ok, false, `zod refuses ${JSON.stringify(body)}`);
        assert.equal(checkResponse(route, body), false, `readResponse refuses ${JSON.stringify(body)}`);
      }
    });
  }
});

describe('reading leniently', () => {
  const histogram = { breaks: [1, 2], num_values: 3, median: 1, hist: [1, 1, 1], avg: 1.2, sum: 3.6 };

  it('drops an unusable list entry, naming the path, and keeps the rest', () => {
    const reading = readDifferences(RESPONSE_SHAPES.toppages, {
      pages: [{ path: '/a', title: 'A' }, { title: 'no path' }, { path: '/c' }],
    });
    assert.ok(reading.ok);
    assert.deepEqual(reading.value, { pages: [{ path: '/a', title: 'A' }, { path: '/c' }] });
    assert.deepEqual(reading.differences, [
      {
        path: '$.pages[1].path',
        pattern: '$.pages[].path',
        kind: 'missing',
        expected: 'string',
        found: 'absent',
        essential: true,
        dropped: '$.pages[1]',
        entry: true,
      },
    ]);
  });

  it('drops an optional field of another type, as if missing', () => {
    const reading = readDifferences(RESPONSE_SHAPES.toppages, {
      pages: [{ path: '/a', stats: { people: '12', visits: 3 } }],
    });
    assert.ok(reading.ok);
    assert.deepEqual(reading.value, { pages: [{ path: '/a', stats: { visits: 3 } }] });
    assert.deepEqual(
      reading.differences.map(({ path, expected, found, dropped, entry }) => ({
        path,
        expected,
        found,
        dropped,
        entry,
      })),
      [
        {
          path: '$.pages[0].stats.people',
          expected: 'number',
          found: 'string',
          dropped: '$.pages[0].stats.people',
          entry: false,
        },
      ],
    );
  });

  it('accepts histograms sent whole, as {avg} alone or as a bare number', () => {
    for (const engaged_time of [histogram, { avg: 42 }, 42]) {
      const body = { pages: [{ path: '/a', stats: { people: 1, engaged_time } }] };
      const reading = readDifferences(RESPONSE_SHAPES.toppages, body);
      assert.ok(reading.ok);
      assert.deepEqual(reading.value, body);
      assert.equal(routes.toppages.response.safeParse(body).success, true);
    }
  });

  it('accepts quickstats v4 without data.metrics and data.host_metadata', () => {
    const body = { data: { stats: { people: 4 } } };
    assert.ok(readDifferences(RESPONSE_SHAPES.quickstats, body).ok);
    assert.equal(routes.quickstats.response.safeParse(body).success, true);
  });

  it('keeps unknown fields unchanged, and names them only when asked (doctor)', () => {
    const body = { pages: [{ path: '/a', future: { x: 1 } }], next: 'cursor' };
    assert.deepEqual(readDifferences(RESPONSE_SHAPES.toppages, body), {
      ok: true,
      value: body,
      differences: [],
    });
    const all = readDifferences(RESPONSE_SHAPES.toppages, body, { all: true });
    assert.deepEqual(
      all.differences.filter((d) => d.kind === 'unknown').map((d) => d.path),
      ['$.pages[0].future', '$.next'],
    );
    const missing = all.differences.filter((d) => d.kind === 'missing');
    assert.ok(missing.some((d) => d.path === '$.pages[0].title' && !d.essential && d.addedBy === undefined));
    assert.ok(missing.some((d) => d.path === '$.pages[0].type' && d.addedBy === 'types'));
  });

  it('names the path, the type expected and the type found of what refuses a body', () => {
    const reading = readDifferences(RESPONSE_SHAPES.toppages, { pages: { a: 1 } });
    assert.equal(reading.ok, false);
    assert.deepEqual(!reading.ok && reading.problem, {
      path: '$.pages',
      pattern: '$.pages',
      kind: 'type',
      expected: 'array',
      found: 'object',
      essential: true,
    });
    const missing = readDifferences(RESPONSE_SHAPES.quickstats, { data: { metrics: {} } });
    assert.deepEqual(!missing.ok && missing.problem, {
      path: '$.data.stats',
      pattern: '$.data.stats',
      kind: 'missing',
      expected: 'object',
      found: 'absent',
      essential: true,
    });
  });

  it('drops an unusable map entry under a key the data chose, its pattern without the key', () => {
    const reading = readDifferences(RESPONSE_SHAPES.referrers, {
      referrers: { 'google.com': 3, 'bad.example': '3', '': 2 },
    });
    assert.ok(reading.ok);
    assert.deepEqual(reading.value, { referrers: { 'google.com': 3, '': 2 } });
    assert.equal(reading.differences[0]!.path, '$.referrers["bad.example"]');
    assert.equal(reading.differences[0]!.pattern, '$.referrers.*');
  });
});
