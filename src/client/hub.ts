/**
 * The page-wide poll hub: one clock, one request per distinct URL per tick, whatever the number
 * of elements showing that URL.
 */
import { Failure, readResponse } from '../api/check-response.ts';
import { findRoute, type RouteName } from '../api/paths.ts';
import { retryAfterMs } from '../api/retry-after.ts';
import { nextMultiple, systemClock, type Clock } from './clock.ts';
import { httpError, INVALID_BODY, networkError } from './errors.ts';
import { replaceEqualDeep } from './structural-sharing.ts';
import { INITIAL_SNAPSHOT, sameSnapshot, type PollError, type PollSnapshot } from './snapshot.ts';
import { watchNearViewport, type WatchNear } from './viewport.ts';

/** The upstream refreshes every 3 s (spec 1 and 8): polling faster brings nothing newer. */
export const MIN_INTERVAL_MS = 3000;
const MAX_BACKOFF_MS = 60_000;
/** Data older than this many intervals is flagged stale even when requests succeed. */
const STALE_AFTER_INTERVALS = 4;

export interface HubOptions {
  /** Poll period in ms, clamped to at least 3000. */
  interval?: number;
  fetch?: typeof globalThis.fetch;
  clock?: Clock;
  /** Source of backoff jitter, in [0, 1). */
  random?: () => number;
  /** Whether an element is near the viewport, for `loading="lazy"` (an IntersectionObserver). */
  watchNear?: WatchNear;
}

export type SnapshotListener = (snapshot: PollSnapshot) => void;

interface Resource {
  readonly url: string;
  readonly route: RouteName | undefined;
  readonly listeners: Set<SnapshotListener>;
  snapshot: PollSnapshot;
  etag: string | undefined;
  inFlight: AbortController | undefined;
  requestedAt: number;
  failures: number;
  retryAt: number;
}

/** The route a URL is for, allowing a prefix before the upstream path (`/api/live/toppages/v3/`). */
export function routeOf(url: string): RouteName | undefined {
  const segments = new URL(url).pathname.split('/').filter(Boolean);
  for (let start = 0; start < segments.length; start++) {
    const route = findRoute(`/${segments.slice(start).join('/')}/`);
    if (route) return route;
  }
  return undefined;
}

export class PollHub {
  #interval = MIN_INTERVAL_MS;
  #fetch: typeof globalThis.fetch = (...args) => globalThis.fetch(...args);
  #clock: Clock = systemClock;
  #random: () => number = Math.random;
  #watchNear: WatchNear = watchNearViewport;
  readonly #resources = new Map<string, Resource>();
  readonly #pending = new Set<Promise<void>>();
  #timer: unknown;
  #nextTickAt = 0;
  #paused = isPageAway();

  constructor(options: HubOptions = {}) {
    this.configure(options);
    globalThis.document?.addEventListener('visibilitychange', this.#onPageChange);
    globalThis.addEventListener?.('online', this.#onPageChange);
    globalThis.addEventListener?.('offline', this.#onPageChange);
  }

  get interval(): number {
    return this.#interval;
  }

  get clock(): Clock {
    return this.#clock;
  }

  /** The configured `fetch`, for loads off the 3 s clock (history, once a minute). */
  get fetch(): typeof globalThis.fetch {
    return this.#fetch;
  }

  /** The configured {@link WatchNear}, for lazy elements. */
  get watchNear(): WatchNear {
    return this.#watchNear;
  }

  configure(options: HubOptions): void {
    this.#stopClock();
    if (options.watchNear) this.#watchNear = options.watchNear;
    if (options.interval !== undefined) this.#interval = Math.max(MIN_INTERVAL_MS, options.interval);
    if (options.fetch) this.#fetch = options.fetch;
    if (options.clock) this.#clock = options.clock;
    if (options.random) this.#random = options.random;
    this.#startClock();
  }

  snapshot(url: string): PollSnapshot {
    return this.#resources.get(url)?.snapshot ?? { ...INITIAL_SNAPSHOT, paused: this.#paused };
  }

  /**
   * Starts delivering snapshots of `url` (absolute) to `listener`. A URL nobody polled yet is
   * fetched at once. The returned function unsubscribes; the last one out aborts the request.
   */
  subscribe(url: string, listener: SnapshotListener): () => void {
    let resource = this.#resources.get(url);
    if (!resource) {
      resource = this.#createResource(url);
      this.#resources.set(url, resource);
      if (!this.#paused && resource.route) this.#request(resource);
      this.#startClock();
    }
    resource.listeners.add(listener);
    const subscribed = resource;
    return () => {
      subscribed.listeners.delete(listener);
      if (subscribed.listeners.size > 0 || this.#resources.get(url) !== subscribed) return;
      subscribed.inFlight?.abort();
      this.#resources.delete(url);
      if (this.#resources.size === 0) this.#stopClock();
    };
  }

  /** Resolves once every request in flight has been handled: a barrier for tests and benchmarks. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  /** Stops everything this hub does; the next `getHub()` makes a new one. */
  dispose(): void {
    this.#stopClock();
    for (const resource of this.#resources.values()) resource.inFlight?.abort();
    this.#resources.clear();
    globalThis.document?.removeEventListener('visibilitychange', this.#onPageChange);
    globalThis.removeEventListener?.('online', this.#onPageChange);
    globalThis.removeEventListener?.('offline', this.#onPageChange);
    const global = globalThis as Record<symbol, unknown>;
    if (global[HUB_KEY] === this) delete global[HUB_KEY];
  }

  #createResource(url: string): Resource {
    const route = routeOf(url);
    const snapshot: PollSnapshot = route
      ? { ...INITIAL_SNAPSHOT, paused: this.#paused }
      : {
          ...INITIAL_SNAPSHOT,
          error: { kind: 'source', message: 'This address is not a data source this widget knows.' },
        };
    return {
      url,
      route,
      listeners: new Set(),
      snapshot,
      etag: undefined,
      inFlight: undefined,
      requestedAt: -Infinity,
      failures: 0,
      retryAt: 0,
    };
  }

  #startClock(): void {
    if (this.#timer !== undefined || this.#paused || this.#resources.size === 0) return;
    const now = this.#clock.now();
    this.#nextTickAt = nextMultiple(Math.max(now, this.#nextTickAt), this.#interval);
    this.#timer = this.#clock.setTimeout(this.#tick, this.#nextTickAt - now);
  }

  #stopClock(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #tick = (): void => {
    this.#timer = undefined;
    this.#pollAll();
    this.#startClock();
  };

  #pollAll(): void {
    const now = this.#clock.now();
    for (const resource of this.#resources.values()) {
      this.#publish(resource, { ...resource.snapshot, stale: this.#isStale(resource.snapshot, now) });
      if (this.#isDue(resource, now)) this.#request(resource);
    }
  }

  readonly #onPageChange = (): void => {
    const paused = isPageAway();
    if (paused === this.#paused) return;
    this.#paused = paused;
    for (const resource of this.#resources.values())
      this.#publish(resource, { ...resource.snapshot, paused });
    if (paused) {
      this.#stopClock();
    } else {
      this.#pollAll();
      this.#startClock();
    }
  };

  #request(resource: Resource): void {
    const controller = new AbortController();
    resource.inFlight = controller;
    resource.requestedAt = this.#clock.now();
    const done = this.#exchange(resource, controller.signal).finally(() => {
      if (resource.inFlight === controller) resource.inFlight = undefined;
      this.#pending.delete(done);
    });
    this.#pending.add(done);
  }

  /**
   * One GET per poll. The browser's HTTP cache makes it conditional (`cache: 'no-cache'`: it sends
   * If-None-Match itself and hands back the stored body on a 304); a header of our own would not
   * be CORS-safelisted and would cost a preflight on every cross-origin poll in Firefox.
   */
  async #exchange(resource: Resource, signal: AbortSignal): Promise<void> {
    let response: Response;
    try {
      response = await this.#fetch(resource.url, {
        headers: { Accept: 'application/json' },
        signal,
        credentials: 'same-origin',
        cache: 'no-cache',
      });
    } catch {
      if (!signal.aborted) this.#fail(resource, networkError(resource.url), 0);
      return;
    }
    if (signal.aborted) return;
    if (response.status === 304 || (response.ok && this.#isShownVersion(resource, response))) {
      // Revalidated: the body is the one already shown, so it is neither read nor parsed again.
      await response.body?.cancel();
      return this.#succeed(resource, response, resource.snapshot.data);
    }
    if (!response.ok) {
      const error = await httpError(response);
      if (!signal.aborted)
        this.#fail(
          resource,
          error,
          retryAfterMs(response.headers.get('Retry-After'), this.#clock.now()) ?? 0,
        );
      return;
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      if (!signal.aborted) this.#fail(resource, INVALID_BODY, 0);
      return;
    }
    if (signal.aborted) return;
    // Unusable optional parts are dropped (the contract's lenient reading); an unusable body is an error.
    const value = readResponse(resource.route!, body);
    if (value instanceof Failure) return this.#fail(resource, INVALID_BODY, 0);
    this.#succeed(resource, response, replaceEqualDeep(resource.snapshot.data, value));
  }

  /** Whether the response carries the ETag of the data on screen (exposed by our CORS headers). */
  #isShownVersion(resource: Resource, response: Response): boolean {
    const etag = response.headers.get('ETag');
    return etag !== null && etag === resource.etag && resource.snapshot.data !== undefined;
  }

  #succeed(resource: Resource, response: Response, data: unknown): void {
    resource.failures = 0;
    resource.retryAt = 0;
    resource.etag = response.headers.get('ETag') ?? (response.status === 304 ? resource.etag : undefined);
    const updatedAt = producedAt(response, this.#clock.now()) ?? resource.snapshot.updatedAt;
    const next = { ...resource.snapshot, data, error: undefined, updatedAt };
    this.#publish(resource, { ...next, stale: this.#isStale(next, this.#clock.now()) });
  }

  /** Keeps the last good data, flags it stale and waits a jittered, growing delay (at least Retry-After). */
  #fail(resource: Resource, error: PollError, retryAfter: number): void {
    resource.failures++;
    const backoff = Math.min(this.#interval * 2 ** (resource.failures - 1), MAX_BACKOFF_MS);
    const jittered = backoff / 2 + (this.#random() * backoff) / 2;
    resource.retryAt = this.#clock.now() + Math.max(jittered, retryAfter);
    this.#publish(resource, { ...resource.snapshot, error, stale: resource.snapshot.data !== undefined });
  }

  /**
   * A URL first fetched just before a tick (at subscription) skips that tick rather than being
   * asked twice within a few milliseconds.
   */
  #isDue(resource: Resource, now: number): boolean {
    return (
      resource.route !== undefined &&
      !resource.inFlight &&
      now >= resource.retryAt &&
      now - resource.requestedAt >= this.#interval / 2
    );
  }

  #isStale(snapshot: PollSnapshot, now: number): boolean {
    const { data, error, updatedAt } = snapshot;
    if (data === undefined) return false;
    return (
      error !== undefined ||
      (updatedAt !== undefined && now - updatedAt > STALE_AFTER_INTERVALS * this.#interval)
    );
  }

  #publish(resource: Resource, next: PollSnapshot): void {
    if (sameSnapshot(resource.snapshot, next)) return;
    resource.snapshot = next;
    for (const listener of [...resource.listeners]) listener(next);
  }
}

/**
 * When the body was produced (or last confirmed) upstream, on this page's clock. `Age` says it
 * directly and stays right on a revalidated answer, whose Last-Modified is the first one stored
 * (our cache leaves Last-Modified out of a 304: Firefox drops an entry whose 304 brings a new
 * one). Without Age, the server's own `Date` minus `Last-Modified`, so a page whose clock is off
 * still reads the age right.
 */
function producedAt(response: Response, now: number): number | undefined {
  const ageHeader = response.headers.get('Age');
  if (ageHeader !== null && /^\d+$/.test(ageHeader.trim())) return now - Number(ageHeader) * 1000;
  const lastModified = Date.parse(response.headers.get('Last-Modified') ?? '');
  if (!Number.isFinite(lastModified)) return response.status === 304 ? undefined : now;
  const serverNow = Date.parse(response.headers.get('Date') ?? '');
  const age = Number.isFinite(serverNow) ? serverNow - lastModified : now - lastModified;
  return now - Math.max(0, age);
}

function isPageAway(): boolean {
  return globalThis.document?.hidden === true || globalThis.navigator?.onLine === false;
}

const HUB_KEY = Symbol.for('pulse-widgets.hub');

/** The page's hub, shared by every copy of this bundle loaded on the page. */
export function getHub(): PollHub {
  const global = globalThis as Record<symbol, PollHub | undefined>;
  return (global[HUB_KEY] ??= new PollHub());
}

/** Page-wide settings: `configure({ interval: 5000 })`. */
export function configure(options: HubOptions): void {
  getHub().configure(options);
}
