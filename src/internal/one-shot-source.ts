import { initialState, Task } from '@lit/task';
import type { ReactiveControllerHost } from 'lit';
import { getHub, type PollError, type PollSnapshot, type SnapshotChange } from '../client/index.ts';
import { changesView, INITIAL_SNAPSHOT } from '../client/snapshot.ts';
import type { DataSource } from './pulse-element.ts';

/**
 * A data source that loads each `url` once, as a `@lit/task` (never on the hub's 3 s clock):
 * setting another `url` aborts the load in progress, and a late answer for an old `url` is
 * dropped. Data older than `maxAgeMs` (the cache's lifetime for it) is stale; the source is
 * paused while it waits for the page to be visible and online.
 */
export class OneShotSource<Data> implements DataSource<Data> {
  snapshot: PollSnapshot<Data> = INITIAL_SNAPSHOT;
  readonly #host: ReactiveControllerHost;
  readonly #onChange: SnapshotChange<Data>;
  #url: string | undefined;

  constructor(host: ReactiveControllerHost, onChange: SnapshotChange<Data>, maxAgeMs: number) {
    this.#host = host;
    this.#onChange = onChange;
    new Task(host, {
      task: ([url]: readonly [string | undefined], { signal }) => (url ? loadOnce<Data>(url, signal, (waiting) => this.#wait(waiting)) : initialState),
      args: () => [this.#url] as const,
      onComplete: (loaded) => this.#receive({ ...loaded, stale: getHub().clock.now() - (loaded.updatedAt ?? Infinity) > maxAgeMs, paused: false }),
      onError: (error) => this.#receive({ ...INITIAL_SNAPSHOT, error: error as PollError }),
    });
  }

  get url(): string | undefined {
    return this.#url;
  }

  /** Starts over with another URL (or none); the task loads it in the host's next update. */
  set url(url: string | undefined) {
    if (url === this.#url) return;
    this.#url = url;
    this.#wait(url ? getHub().snapshot(url) : INITIAL_SNAPSHOT);
  }

  #wait(waiting: PollSnapshot): void {
    this.#receive({ ...INITIAL_SNAPSHOT, paused: waiting.paused });
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

/**
 * Loads `url` once through the page's hub, so a one-shot load gets what polling gets (the page's
 * fetch, response validation, readable errors, `Last-Modified`) without joining the 3 s clock:
 * the subscription ends at the first answer, which removes the URL from the hub. Aborting
 * `signal` unsubscribes, and the hub aborts the request when no one else wants it.
 *
 * Resolves with the snapshot holding the data; rejects with the `PollError`. `onWait` hears of
 * snapshots before the answer (the hub pauses while the page is hidden or offline).
 */
function loadOnce<T>(url: string, signal: AbortSignal, onWait: (snapshot: PollSnapshot<T>) => void): Promise<PollSnapshot<T>> {
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
