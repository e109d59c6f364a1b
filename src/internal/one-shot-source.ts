import type { ReactiveController, ReactiveControllerHost } from 'lit';
import {
  getHub,
  MIN_INTERVAL_MS,
  type PollError,
  type PollSnapshot,
  type SnapshotChange,
} from '../client/index.ts';
import { changesView, INITIAL_SNAPSHOT } from '../client/snapshot.ts';
import type { DataSource } from './frame.ts';

/**
 * A data source that loads each `url` once (never on the hub's 3 s clock): setting another
 * `url` aborts the load in progress, and a late answer for an old `url` is dropped. Data older than `maxAgeMs` (the cache's lifetime for it) is stale; the source is
 * paused while it waits for the page to be visible and online.
 */
export class OneShotSource<Data> implements DataSource<Data>, ReactiveController {
  snapshot: PollSnapshot<Data> = INITIAL_SNAPSHOT;
  readonly #host: ReactiveControllerHost;
  readonly #onChange: SnapshotChange<Data>;
  readonly #maxAgeMs: number;
  /** Aborts the load in progress; a load whose controller is aborted reports nothing. */
  #abort: AbortController | undefined;
  #url: string | undefined;
  #failures = 0;
  #retryTimer: unknown;

  constructor(host: ReactiveControllerHost, onChange: SnapshotChange<Data>, maxAgeMs: number) {
    this.#host = host;
    this.#onChange = onChange;
    host.addController(this);
    this.#maxAgeMs = maxAgeMs;
  }

  get url(): string | undefined {
    return this.#url;
  }

  /** Starts over with another URL (or none), abandoning the load in progress. */
  set url(url: string | undefined) {
    if (url === this.#url) return;
    this.#url = url;
    this.#failures = 0;
    this.#cancelRetry();
    this.#receive({ ...INITIAL_SNAPSHOT, paused: url ? getHub().snapshot(url).paused : false });
    this.#load();
  }

  hostConnected(): void {
    this.#scheduleRetry();
  }

  hostDisconnected(): void {
    this.#cancelRetry();
  }

  /** Loads `url` (none without one), abandoning the load in progress: only the latest load reports. */
  #load(): void {
    this.#abort?.abort();
    const url = this.#url;
    if (!url) return;
    const abort = (this.#abort = new AbortController());
    loadOnce<Data>(url, abort.signal, (waiting) => this.#wait(waiting)).then(
      (loaded) => {
        if (abort.signal.aborted) return;
        this.#failures = 0;
        this.#receive({
          ...loaded,
          stale: getHub().clock.now() - (loaded.updatedAt ?? Infinity) > this.#maxAgeMs,
          paused: false,
        });
      },
      (error: PollError) => {
        if (abort.signal.aborted) return;
        this.#failures++;
        this.#receive({ ...INITIAL_SNAPSHOT, error });
        this.#scheduleRetry();
      },
    );
  }

  /** While a failed load waits for its retry, the card keeps saying why rather than "Loading…". */
  #wait(waiting: PollSnapshot): void {
    this.#receive({ ...INITIAL_SNAPSHOT, error: this.snapshot.error, paused: waiting.paused });
  }

  /**
   * A load that failed for a passing reason (network, busy or failing cache, a garbled answer) is
   * tried again after a growing delay, as the hub does for polled URLs; a refusal (4xx) is not.
   */
  #scheduleRetry(): void {
    const error = this.snapshot.error;
    if (!error || this.#retryTimer !== undefined || !isPassing(error)) return;
    const clock = getHub().clock;
    const delay = Math.min(MIN_INTERVAL_MS * 2 ** Math.max(0, this.#failures - 1), MAX_RETRY_MS);
    this.#retryTimer = clock.setTimeout(() => {
      this.#retryTimer = undefined;
      this.#load();
    }, delay);
  }

  #cancelRetry(): void {
    if (this.#retryTimer === undefined) return;
    getHub().clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  #receive(next: PollSnapshot<Data>): void {
    const previous = this.snapshot;
    this.snapshot = next;
    if (changesView(previous, next)) {
      this.#onChange(next, previous);
      this.#host.requestUpdate();
    }
  }
}

const MAX_RETRY_MS = 60_000;

function isPassing(error: PollError): boolean {
  return (
    error.kind === 'network' ||
    error.kind === 'invalid' ||
    (error.status !== undefined && (error.status >= 500 || error.status === 429 || error.status === 408))
  );
}

/**
 * Loads `url` once through the page's hub, so a one-shot load gets what polling gets (the page's
 * fetch, response validation, readable errors, `Last-Modified`) without joining the 3 s clock:
 * the subscription ends at the first answer, which removes the URL from the hub. Aborting
 * `signal` unsubscribes, and the hub aborts the request when no one else wants it.
 *
 * Resolves with the snapshot holding the data; rejects with the `PollError`. `onWait` hears of
 * snapshots before the answer (the hub pauses while the page is hidden or offline).
 */
function loadOnce<T>(
  url: string,
  signal: AbortSignal,
  onWait: (snapshot: PollSnapshot<T>) => void,
): Promise<PollSnapshot<T>> {
  return new Promise((resolve, reject) => {
    const hub = getHub();
    let unsubscribe = () => {};
    const settle = (snapshot: PollSnapshot<T>): boolean => {
      if (snapshot.data === undefined && snapshot.error === undefined) return false;
      unsubscribe();
      signal.removeEventListener('abort', abort);
      if (snapshot.data !== undefined) resolve(snapshot);
      else reject(snapshot.error as PollError);
      return true;
    };
    const abort = () => {
      unsubscribe();
      reject(signal.reason);
    };
    if (settle(hub.snapshot(url) as PollSnapshot<T>)) return;
    signal.addEventListener('abort', abort, { once: true });
    unsubscribe = hub.subscribe(url, (snapshot) => {
      if (!settle(snapshot as PollSnapshot<T>)) onWait(snapshot as PollSnapshot<T>);
    });
    onWait(hub.snapshot(url) as PollSnapshot<T>);
  });
}
