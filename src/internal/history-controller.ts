import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { checkShape } from '../api/check-response.ts';
import { HISTORY_PATH, type HistoryMetric, type HistoryRange } from '../api/history-paths.ts';
import type { HistoryResponse } from '../api/history.ts';
import { HISTORY_SHAPE } from '../api/response-shapes.ts';
import { getHub, type PollError } from '../client/index.ts';
import { httpError, INVALID_BODY, networkError } from '../client/errors.ts';

/** History gains a point a minute: it is asked for a few seconds after each minute turns, once the cache has recorded it. */
const MINUTE_MS = 60_000;
const AFTER_RECORDING_MS = 3000;

/**
 * The `/history/v1/` address beside a quickstats address (same origin and prefix, same host):
 * `/pulse/live/quickstats/v4/?host=a.com` gives `/pulse/history/v1/?host=a.com&metric=…&range=…`.
 */
export function historyUrlFor(
  quickstatsUrl: string,
  metric: HistoryMetric,
  range: HistoryRange = 'today',
): string | undefined {
  const url = new URL(quickstatsUrl);
  const at = url.pathname.lastIndexOf('/live/quickstats/v4');
  const host = url.searchParams.get('host');
  if (at === -1 || !host) return undefined;
  const history = new URL(`${url.pathname.slice(0, at)}${HISTORY_PATH}`, url);
  history.search = new URLSearchParams({ host, metric, range }).toString();
  return history.href;
}

/**
 * Loads a history address once, then again a few seconds after every minute, never on the 3 s
 * clock, with the page hub's `fetch` and clock (so tests and Storybook drive it like the rest)
 * and its validators (`If-None-Match`). The last good answer is kept when a reload fails.
 */
export class HistoryController implements ReactiveController {
  data: HistoryResponse | undefined;
  error: PollError | undefined;
  readonly #host: ReactiveControllerHost;
  readonly #onChange: () => void;
  #url: string | undefined;
  #etag: string | undefined;
  #abort: AbortController | undefined;
  /** The next minute's reload (a clock handle), or the listener waiting for the page to be back. */
  #timer: unknown;
  #connected = false;

  constructor(host: ReactiveControllerHost, onChange: () => void = () => {}) {
    this.#host = host;
    this.#onChange = onChange;
    host.addController(this);
  }

  get url(): string | undefined {
    return this.#url;
  }

  set url(url: string | undefined) {
    if (url === this.#url) return;
    this.#stop();
    this.#url = url;
    this.data = undefined;
    this.error = undefined;
    this.#etag = undefined;
    if (this.#connected) void this.#load();
  }

  hostConnected(): void {
    this.#connected = true;
    if (!this.#abort && this.#timer === undefined) void this.#load();
  }

  hostDisconnected(): void {
    this.#connected = false;
    this.#stop();
  }

  async #load(): Promise<void> {
    const url = this.#url;
    if (!url) return;
    // Like the hub: nothing while the page is hidden or offline; at once when it is back.
    if (globalThis.document?.hidden || globalThis.navigator?.onLine === false) return this.#waitForPage();
    const hub = getHub();
    const abort = (this.#abort = new AbortController());
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.#etag) headers['If-None-Match'] = this.#etag;
    let error: PollError | undefined;
    try {
      const response = await hub.fetch(url, { headers, signal: abort.signal, credentials: 'same-origin' });
      if (response.status !== 304) {
        if (!response.ok) error = await httpError(response);
        else {
          const body: unknown = await response.json().catch(() => undefined);
          if (!checkShape(HISTORY_SHAPE, body)) error = INVALID_BODY;
          else {
            this.data = body as HistoryResponse;
            this.#etag = response.headers.get('ETag') ?? undefined;
          }
        }
      }
    } catch {
      if (!abort.signal.aborted) error = networkError(url);
    }
    if (abort.signal.aborted) return;
    this.#abort = undefined;
    this.error = error;
    this.#schedule();
    this.#onChange();
    this.#host.requestUpdate();
  }

  #waitForPage(): void {
    const back = () => {
      document.removeEventListener('visibilitychange', back);
      removeEventListener('online', back);
      this.#timer = undefined;
      if (this.#connected) void this.#load();
    };
    document.addEventListener('visibilitychange', back);
    addEventListener('online', back);
    this.#timer = back;
  }

  #schedule(): void {
    const clock = getHub().clock;
    const now = clock.now();
    const next = Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS + AFTER_RECORDING_MS;
    this.#timer = clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#connected) void this.#load();
    }, next - now);
  }

  #stop(): void {
    this.#abort?.abort();
    this.#abort = undefined;
    if (typeof this.#timer === 'function') {
      document.removeEventListener('visibilitychange', this.#timer as () => void);
      removeEventListener('online', this.#timer as () => void);
    } else if (this.#timer !== undefined) getHub().clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** Index of the point holding `t` in a history answer, or -1 outside it. */
export function pointAt(history: HistoryResponse, t: number): number {
  const index = Math.floor((t - history.start) / (history.stepSeconds * 1000));
  return index >= 0 && index < history.typical.median.length ? index : -1;
}

export interface Comparison {
  direction: 'above' | 'below' | 'same';
  /** |value − median| / median. */
  share: number;
  median: number;
}

/** `value` against the typical median at `t`; `undefined` when history has no typical value then. */
export function compareWithTypical(
  history: HistoryResponse,
  t: number,
  value: number,
): Comparison | undefined {
  const index = pointAt(history, t);
  const median = index === -1 ? null : history.typical.median[index];
  if (median === null || median === undefined || median <= 0) return undefined;
  const share = Math.abs(value - median) / median;
  // Within half a percent reads "about the same": a rounded 0 % above would say nothing.
  const direction = share < 0.005 ? 'same' : value > median ? 'above' : 'below';
  return { direction, share, median };
}
