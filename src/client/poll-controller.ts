import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { getHub } from './hub.ts';
import { changesView, INITIAL_SNAPSHOT, type PollSnapshot } from './snapshot.ts';

export type SnapshotChange<T> = (next: PollSnapshot<T>, previous: PollSnapshot<T>) => void;

/**
 * Subscribes its host to one URL of the page's hub while the host is connected. Moving the host
 * in the DOM (disconnect then connect in one task) keeps the subscription: the unsubscribe waits
 * a microtask and is cancelled by the reconnect, so nothing is refetched.
 */
export class PollController<T> implements ReactiveController {
  /** The latest snapshot of `url`, including changes that need no render (`updatedAt` alone). */
  snapshot: PollSnapshot<T> = INITIAL_SNAPSHOT;
  readonly #host: ReactiveControllerHost;
  readonly #onChange: SnapshotChange<T>;
  #url: string | undefined;
  #unsubscribe: (() => void) | undefined;
  #connected = false;
  #active = true;

  constructor(host: ReactiveControllerHost, onChange: SnapshotChange<T>) {
    this.#host = host;
    this.#onChange = onChange;
    host.addController(this);
  }

  get url(): string | undefined {
    return this.#url;
  }

  /** Switches to another absolute URL (or none); snapshots of the old one no longer arrive. */
  set url(url: string | undefined) {
    if (url === this.#url) return;
    this.#stop();
    this.#url = url;
    this.#receive(url ? (getHub().snapshot(url) as PollSnapshot<T>) : INITIAL_SNAPSHOT);
    if (this.#connected) this.#start();
  }

  /**
   * Whether to poll (true unless set). Set false, it unsubscribes and keeps its last snapshot, so
   * a lazy element far from the viewport keeps what it showed; set true again, it subscribes and
   * keeps that data until the hub has newer.
   */
  get active(): boolean {
    return this.#active;
  }

  set active(active: boolean) {
    if (active === this.#active) return;
    this.#active = active;
    if (!active) this.#stop();
    else if (this.#connected && !this.#unsubscribe) this.#start();
  }

  hostConnected(): void {
    this.#connected = true;
    if (!this.#unsubscribe) this.#start();
  }

  hostDisconnected(): void {
    this.#connected = false;
    queueMicrotask(() => {
      if (!this.#connected) this.#stop();
    });
  }

  #start(): void {
    const url = this.#url;
    if (!url || !this.#active) return;
    const hub = getHub();
    this.#unsubscribe = hub.subscribe(url, (snapshot) => {
      if (url === this.#url) this.#receive(snapshot as PollSnapshot<T>);
    });
    const now = hub.snapshot(url) as PollSnapshot<T>;
    // Back from inactive: what was shown stays until the hub has data (never a blank card between two polls).
    if (now.data !== undefined || this.snapshot.data === undefined) this.#receive(now);
  }

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #receive(next: PollSnapshot<T>): void {
    const previous = this.snapshot;
    this.snapshot = next;
    if (changesView(previous, next)) {
      this.#onChange(next, previous);
      this.#host.requestUpdate();
    }
  }
}
