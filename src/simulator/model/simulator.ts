/**
 * The seeded model of the upstream service: answers any route for any served host at any time,
 * as a pure function of (seed, host, 3-second step, parameters). It keeps only the latest
 * snapshot per host, so memory stays bounded however long it runs.
 */
import type {
  FullHistogram,
  Histogram,
  HistoryMetric,
  RouteName,
  RouteParams,
  RouteResponse,
} from '../../api/index.ts';
import { siteHistory } from './backfill.ts';
import { rawData } from './experiments.ts';
import { createSite, type Site } from './site.ts';
import { computeSnapshot, STEP_MS, type Snapshot, type View } from './snapshot.ts';
import { quickstats, referrers, summary, toppages, topGeo } from './views.ts';

/** The demo sites; both are valid `host` values (src/api/params.ts). */
export const DEMO_HOSTS: readonly string[] = ['example.com', 'news.example.org'];

const VIDEO_PREFIX = 'video@';

/**
 * A body as the simulator sends it: the contract reads most fields as optional (a real answer
 * may lack them), but the simulator sends every one its query asks for, and histograms whole.
 */
export type Sent<T> = [T, Histogram] extends [Histogram, T]
  ? FullHistogram
  : T extends string | number | boolean | null
    ? T
    : T extends readonly (infer U)[]
      ? Sent<U>[]
      : T extends object
        ? { [K in keyof T]-?: Sent<Exclude<T[K], undefined>> }
        : T;

type LiveRoute = Exclude<RouteName, 'raw_data'>;
const LIVE_VIEWS: { [N in LiveRoute]: (snapshot: Snapshot, params: RouteParams<N>) => RouteResponse<N> } = {
  toppages,
  summary,
  referrers,
  top_geo: topGeo,
  quickstats,
};

export interface SimulatorOptions {
  /** Same seed, same numbers. Default 1. */
  seed?: number;
  /** Sites served; default DEMO_HOSTS. */
  hosts?: readonly string[];
  /**
   * Snapshots kept per site: the newest steps asked for (default 1, so memory stays bounded
   * however long it runs). A process that replays the same minutes many times (the cache's
   * simulation, one run per seed) keeps them all and computes each step once.
   */
  keptSteps?: number;
}

export interface Simulator {
  readonly seed: number;
  readonly hosts: readonly string[];
  /** Whether `host` (a site ID, or `video@` + site ID) is served. */
  serves(host: string): boolean;
  /** The 3-second step that `nowMs` falls in; answers are identical within one step. */
  stepAt(nowMs: number): number;
  /** The route's response at `nowMs`. Throws a RangeError for a host that is not served. */
  answer<N extends RouteName>(route: N, params: RouteParams<N>, nowMs: number): Sent<RouteResponse<N>>;
  /**
   * What a history recorder would have kept of `metric` per minute from `from` (ms) for
   * `minutes`, from the model's daily curve: the demo's backfill. `undefined` for a host not served.
   */
  history(host: string, metric: HistoryMetric, from: number, minutes: number): Float64Array | undefined;
  /** The time zone of a simulated site's audience (a fixed offset, `Etc/GMT+5` is UTC−5), for history's "today". */
  timeZone(host: string): string | undefined;
}

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const seed = options.seed ?? 1;
  const hosts = [...(options.hosts ?? DEMO_HOSTS)].map((host) => host.toLowerCase());
  const sites = new Map<string, Site>(
    hosts.map((host, position) => [host, createSite(seed, host, position)]),
  );
  const keptSteps = Math.max(1, options.keptSteps ?? 1);
  const kept = new Map<string, Map<number, Snapshot>>();

  function locate(host: string): { site: Site; view: View } | undefined {
    const lower = host.toLowerCase();
    const video = lower.startsWith(VIDEO_PREFIX);
    const site = sites.get(video ? lower.slice(VIDEO_PREFIX.length) : lower);
    return site && { site, view: video ? 'video' : 'site' };
  }

  function snapshot(site: Site, view: View, step: number): Snapshot {
    const id = `${view}:${site.host}`;
    let steps = kept.get(id);
    if (!steps) kept.set(id, (steps = new Map()));
    const cached = steps.get(step);
    if (cached) return cached;
    const fresh = computeSnapshot(site, step, view);
    // Keep the newest steps only; a request older than all of them computes its step without evicting one.
    if (steps.size < keptSteps) steps.set(step, fresh);
    else {
      const oldest = Math.min(...steps.keys());
      if (oldest < step) {
        steps.delete(oldest);
        steps.set(step, fresh);
      }
    }
    return fresh;
  }

  const stepAt = (nowMs: number) => Math.floor(nowMs / STEP_MS);

  function answer<N extends RouteName>(
    route: N,
    params: RouteParams<N>,
    nowMs: number,
  ): Sent<RouteResponse<N>> {
    const found = locate(params.host);
    if (!found) throw new RangeError(`host ${params.host} is not served by this simulator`);
    const step = stepAt(nowMs);
    if (route === 'raw_data') {
      if (found.view === 'video') throw new RangeError('video@ hosts only have real-time data');
      return rawData(found.site, params as RouteParams<'raw_data'>, step * STEP_MS) as Sent<RouteResponse<N>>;
    }
    // TypeScript cannot correlate the route with its builder's parameter type; the table below can.
    const build = LIVE_VIEWS[route as LiveRoute] as unknown as (
      snapshot: Snapshot,
      params: RouteParams<N>,
    ) => RouteResponse<N>;
    return build(snapshot(found.site, found.view, step), params) as Sent<RouteResponse<N>>;
  }

  const histories = new Map<string, ReturnType<typeof siteHistory>>();
  function history(
    host: string,
    metric: HistoryMetric,
    from: number,
    minutes: number,
  ): Float64Array | undefined {
    const found = locate(host);
    if (!found) return undefined;
    const id = `${found.view}:${found.site.host}`;
    let read = histories.get(id);
    if (!read) histories.set(id, (read = siteHistory(found.site, found.view)));
    return read(metric, from, minutes);
  }

  function timeZone(host: string): string | undefined {
    const offset = locate(host)?.site.utcOffsetHours;
    // POSIX signs: Etc/GMT+5 is five hours behind UTC.
    return offset === undefined
      ? undefined
      : offset === 0
        ? 'UTC'
        : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
  }

  return { seed, hosts, serves: (host) => locate(host) !== undefined, stepAt, answer, history, timeZone };
}
