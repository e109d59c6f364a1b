/**
 * The browser's zod-free validator must say exactly what the zod schemas say: run both over the
 * simulator's answers and over thousands of seeded mutations of them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { checkResponse, parseQuery, registerShape, ROUTE_NAMES, routes, type RouteName } from '../src/api/index.ts';
import { RESPONSE_SHAPES } from '../src/api/response-shapes.ts';
import { createSimulator, DEMO_HOSTS } from '../src/simulator/index.ts';
import { responseShapesSource } from '../scripts/generate-response-shapes.ts';

const simulator = createSimulator({ seed: 11 });
const NOW = Date.UTC(2026, 10, 22, 14, 0, 0);
const QUERIES: Record<RouteName, string> = {
  toppages: `host=${DEMO_HOSTS[0]}&limit=8&all_platforms=1&loyalty=1&types=1&now_on=1&metrics=_pw,_rv,_cmp,video_state`,
  summary: `host=${DEMO_HOSTS[0]}&keys=title,time_spent,referrer,read`,
  referrers: `host=${DEMO_HOSTS[1]}&by_type=1`,
  top_geo: `host=${DEMO_HOSTS[0]}&limit=5`,
  quickstats: `host=${DEMO_HOSTS[1]}&all_platforms=1&loyalty=1&now_on=1`,
  raw_data: `host=${DEMO_HOSTS[0]}&start=2026-01-01&end=2026-11-01&tz=Europe/Paris&limit=20`,
};

function answer(route: RouteName): unknown {
  const parsed = parseQuery(route, new URLSearchParams(QUERIES[route]));
  assert.ok(parsed.success);
  return JSON.parse(JSON.stringify(simulator.answer(route, parsed.params as never, NOW)));
}

/** A tiny seeded generator (mulberry32), so a failing mutation can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Container = Record<string, unknown> | unknown[];
function places(value: unknown, found: [Container, string | number][] = []): [Container, string | number][] {
  if (Array.isArray(value)) value.forEach((item, i) => { found.push([value, i]); places(item, found); });
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) { found.push([value as Record<string, unknown>, key]); places(item, found); }
  }
  return found;
}

const REPLACEMENTS: unknown[] = ['12', null, true, [], {}, 3.5, -1, '', { people: 1 }, [1, 'x']];

describe('checkResponse before any element registers a shape', () => {
  it('checks no route: a body it cannot check is not taken as valid', () => {
    assert.equal(checkResponse('summary', {}), false);
  });
});

describe('checkResponse agrees with the zod schemas', () => {
  before(() => {
    for (const route of ROUTE_NAMES) registerShape(route, RESPONSE_SHAPES[route]);
  });

  it('the generated shapes are up to date with src/api/responses.ts', () => {
    const committed = readFileSync(new URL('../src/api/response-shapes.ts', import.meta.url), 'utf8');
    assert.equal(committed, responseShapesSource(), 'run `npm run generate:shapes`');
  });

  for (const route of ROUTE_NAMES) {
    it(`on ${route}: the simulator's answer and 400 seeded mutations of it`, () => {
      const valid = answer(route);
      assert.equal(routes[route].response.safeParse(valid).success, true);
      assert.equal(checkResponse(route, valid), true);
      const next = random(route.length * 7919);
      let rejected = 0;
      for (let trial = 0; trial < 400; trial++) {
        const body = structuredClone(valid);
        const spots = places(body);
        const [container, key] = spots[Math.floor(next() * spots.length)]!;
        if (next() < 0.25 && !Array.isArray(container)) delete container[key as string];
        else (container as Record<string | number, unknown>)[key] = structuredClone(REPLACEMENTS[Math.floor(next() * REPLACEMENTS.length)]);
        const zodSays = routes[route].response.safeParse(body).success;
        assert.equal(checkResponse(route, body), zodSays, `trial ${trial} at ${String(key)}: zod ${zodSays ? 'accepts' : 'rejects'}, checkResponse does not`);
        if (!zodSays) rejected++;
      }
      assert.ok(rejected > 50, `mutations must exercise rejection (${rejected} rejected)`);
    });
  }

  it('rejects a value of none of the forms, a missing key, the wrong type', () => {
    assert.equal(checkResponse('referrers', { referrers: { 'a.com': '3' } }), false);
    assert.equal(checkResponse('top_geo', { geo: { total: 1 } }), false);
    assert.equal(checkResponse('toppages', []), false);
  });
});
