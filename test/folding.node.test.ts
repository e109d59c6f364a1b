/**
 * Query folding proved against the simulator: for many seeds, hosts and 3 s steps, random fold
 * groups of narrow queries, one fill of their union, and every narrow answer derived from it
 * equals, byte for byte, the simulator's own answer to the narrow query. And the flags really
 * add fields in the simulator (absent without them), or the proof would prove nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SORT_BY, SUMMARY_KEYS, type RouteName } from '../src/api/index.ts';
import {
  covers,
  deriveAnswer,
  foldMember,
  shapeQuery,
  union,
  type FoldShape,
} from '../src/server/cache/folding.ts';
import { DEMO_HOSTS, STEP_MS } from '../src/simulator/index.ts';
import { SECTIONS } from '../src/simulator/model/vocabulary.ts';
import { simulatedUpstream } from './helpers/simulated-upstream.node.ts';

const T0 = Date.parse('2026-03-10T14:00:00Z');
const HOSTS = [...DEMO_HOSTS, `video@${DEMO_HOSTS[1]}`];
const FLAGS = ['now_on', 'all_platforms', 'loyalty', 'types'] as const;
const METRICS = ['_pw', '_rv', '_cmp', '_sub', '_rt', '_ab', 'video_state', '_unknown'];

/** mulberry32: a small seeded generator, so a failure names its seed and can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const some = <T>(items: readonly T[], most = items.length): T[] =>
    items.filter(() => next() < 0.5).slice(0, most);
  return { next, int, pick, some };
}

const simulator = (seed: number) => simulatedUpstream(seed, T0);

type Rng = ReturnType<typeof random>;

/** The row-selecting parameters of one group, shared by all its narrow queries. */
function groupBase(route: RouteName, host: string, rng: Rng, paths: readonly string[]): string[] {
  const base = [`host=${encodeURIComponent(host)}`];
  const maybe = (chance: number, param: () => string) => rng.next() < chance && base.push(param());
  if (route === 'toppages') {
    maybe(0.3, () => `section=${encodeURIComponent(rng.some(SECTIONS, 2).join(',') || 'News')}`);
    maybe(0.2, () => `sort_by=${rng.pick(SORT_BY)}`);
    maybe(0.2, () => `exclude_people=${rng.int(0, 4)}`);
  }
  if (route === 'quickstats') {
    maybe(0.3, () => `path=${encodeURIComponent(rng.pick(paths))}`);
    maybe(0.2, () => `section=${encodeURIComponent(rng.pick(SECTIONS))}`);
  }
  if (route === 'summary' || route === 'referrers')
    maybe(0.3, () => `path=${encodeURIComponent(rng.pick(paths))}`);
  return base;
}

/** One narrow query of the group: what folds, drawn at random. */
function narrowQuery(route: RouteName, base: readonly string[], rng: Rng): string {
  const params = [...base];
  if (route === 'toppages' || route === 'referrers' || route === 'top_geo')
    params.push(`limit=${rng.pick([1, 2, 3, 5, 10, rng.int(1, 100)])}`);
  if (route === 'toppages' || route === 'quickstats')
    for (const flag of FLAGS) if (rng.next() < 0.4) params.push(`${flag}=1`);
  if (route === 'toppages' && rng.next() < 0.4)
    params.push(`metrics=${rng.some(METRICS, 4).join(',') || '_rv'}`);
  if (route === 'summary') params.push(`keys=${rng.some(SUMMARY_KEYS, 6).join(',') || 'new'}`);
  return params.join('&');
}

const FOLDING_ROUTES: RouteName[] = ['toppages', 'quickstats', 'summary', 'referrers', 'top_geo'];

describe('folding', () => {
  it("every derived answer equals the simulator's direct answer, byte for byte (seeds × hosts × steps × routes)", async () => {
    let proved = 0;
    for (let seed = 1; seed <= 6; seed += 1) {
      const sim = simulator(seed);
      const rng = random(seed * 7919);
      for (const host of HOSTS) {
        for (let round = 0; round < 3; round += 1) {
          sim.clock.now = T0 + rng.int(0, 28_800) * STEP_MS + rng.int(0, STEP_MS - 1);
          const paths = (
            JSON.parse(await sim.text('toppages', `host=${encodeURIComponent(host)}&limit=20`)) as {
              pages: { path: string }[];
            }
          ).pages.map((page) => page.path);
          for (const route of FOLDING_ROUTES) {
            const base = groupBase(route, host, rng, paths.length > 0 ? paths : ['/']);
            const narrow = Array.from({ length: rng.int(1, 5) }, () => narrowQuery(route, base, rng));
            const members = narrow.map((query) => ({
              query,
              member: foldMember(route, new URLSearchParams(query).toString()),
            }));
            for (const { query, member } of members) assert.ok(member, `${route}?${query} folds`);
            assert.equal(new Set(members.map(({ member }) => member!.group)).size, 1, 'one group');
            let wide: FoldShape | undefined = members[0]!.member!.shape;
            for (const { member } of members.slice(1)) wide = wide && union(wide, member!.shape);
            if (!wide) continue;
            const wideBody = JSON.parse(
              await sim.text(route, shapeQuery(route, members[0]!.member!.group, wide)),
            );
            for (const { query, member } of members) {
              assert.ok(covers(wide, member!.shape));
              const derived = JSON.stringify(deriveAnswer(route, wideBody, member!.shape));
              const direct = await sim.text(route, query);
              if (derived !== direct) {
                assert.deepEqual(
                  JSON.parse(derived),
                  JSON.parse(direct),
                  `seed ${seed} ${host} at ${sim.clock.now}: ${route}?${query} from ${shapeQuery(route, member!.group, wide)}`,
                );
                assert.fail(`seed ${seed}: ${route}?${query}: equal values, different bytes`);
              }
              proved += 1;
            }
          }
        }
      }
    }
    assert.ok(proved > 300, `${proved} derived answers checked`);
  });

  it('filters and shape-changing parameters never fold; the group names every row filter', () => {
    assert.equal(foldMember('referrers', 'by_type=1&host=example.com&limit=5'), undefined);
    assert.equal(foldMember('referrers', 'host=example.com'), undefined, 'no limit: no default in the spec');
    assert.equal(foldMember('top_geo', 'host=example.com'), undefined);
    assert.equal(
      foldMember('raw_data', 'end=2026-03-10&host=example.com&start=2026-03-01&status=all&tz=UTC'),
      undefined,
    );
    const plain = foldMember('toppages', 'host=example.com&limit=5')!;
    for (const filter of ['section=News', 'author=Ann', 'exclude_people=3', 'sort_by=search']) {
      assert.notEqual(
        foldMember('toppages', `${filter}&host=example.com&limit=5`)!.group,
        plain.group,
        filter,
      );
    }
    assert.notEqual(
      foldMember('summary', 'host=example.com&keys=new&path=%2Fa')!.group,
      foldMember('summary', 'host=example.com&keys=new')!.group,
    );
    assert.equal(foldMember('toppages', 'host=example.com&limit=50&loyalty=1')!.group, plain.group);
  });

  it('a union stays within our bounds: limit ≤ 100, at most 20 metrics', () => {
    const shape = (limit: number, list?: string[]): FoldShape => ({ limit, flags: new Set(), list });
    assert.deepEqual(union(shape(5), shape(100))?.limit, 100);
    const many = (from: number) => Array.from({ length: 12 }, (_, i) => `_m${from + i}`).sort();
    assert.equal(union(shape(5, many(0)), shape(5, many(20))), undefined);
    assert.ok(
      !covers(shape(10, ['_a']), shape(10)) === false,
      'metrics absent is covered by metrics present',
    );
    assert.ok(!covers(shape(10), shape(10, ['_a'])));
  });

  it("the simulator adds each flag's fields only with the flag (spec 4.1, 4.5)", async () => {
    const sim = simulator(3);
    sim.clock.now = T0 + 500 * STEP_MS;
    const page = async (query: string) =>
      (
        JSON.parse(await sim.text('toppages', `host=example.com&limit=30&${query}`)) as {
          pages: Record<string, unknown>[];
        }
      ).pages;
    const stats = async (query: string) =>
      (
        JSON.parse(await sim.text('quickstats', `host=example.com&${query}`)) as {
          data: { stats: Record<string, unknown> } & Record<string, unknown>;
        }
      ).data;
    const without = await page('');
    const everything = await page('now_on=1&all_platforms=1&loyalty=1&types=1&metrics=_pw,_rv');
    for (const entry of without) {
      const fields = entry.stats as Record<string, unknown>;
      for (const field of ['platform', 'platform_engaged', 'loyalty', 'now_on'])
        assert.ok(!(field in fields), `toppages ${field} without its flag`);
      assert.ok(!('type' in entry) && !('metrics' in entry));
    }
    for (const entry of everything) {
      const fields = entry.stats as Record<string, unknown>;
      for (const field of ['platform', 'platform_engaged', 'loyalty', 'now_on'])
        assert.ok(field in fields, `toppages ${field} with its flag`);
      assert.ok(entry.type === 'Article' || entry.type === 'Landing Page');
      assert.deepEqual(Object.keys(entry.metrics as object), ['_pw', '_rv']);
    }
    const articles = everything.filter((entry) => entry.type === 'Article');
    assert.ok(
      articles.some((entry) => (entry.stats as { now_on: unknown[] }).now_on.length > 0),
      'now_on lists recirculation of some article',
    );
    assert.ok(
      everything
        .filter((entry) => entry.type === 'Landing Page')
        .every((entry) => (entry.stats as { now_on: unknown[] }).now_on.length === 0),
      'now_on is for article pages only',
    );
    const quick = await stats('');
    for (const field of ['platform', 'platform_engaged', 'loyalty', 'now_on'])
      assert.ok(!(field in quick.stats), `quickstats ${field} without its flag`);
    const path = without[0]!.path as string;
    const typed = await stats(`path=${encodeURIComponent(path)}`);
    assert.ok(!('type' in typed));
    const full = await stats(`path=${encodeURIComponent(path)}&now_on=1&all_platforms=1&loyalty=1&types=1`);
    for (const field of ['platform', 'platform_engaged', 'loyalty', 'now_on'])
      assert.ok(field in full.stats, `quickstats ${field} with its flag`);
    assert.ok(full.type === 'Article' || full.type === 'Landing Page');
    const summary = JSON.parse(await sim.text('summary', 'host=example.com&keys=new,read')) as Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(summary), ['new', 'read'], 'summary answers exactly the keys asked');
  });
});
