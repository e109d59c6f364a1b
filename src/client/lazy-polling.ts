import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { getHub } from './hub.ts';

/** A lazy element this long away from the viewport stops polling: the reader has moved on. */
export const FAR_AWAY_MS = 60_000;

/** What lazy polling switches on and off: a data source that polls only while active. */
export interface Switchable {
  active?: boolean;
}

/**
 * `loading="lazy"`, like `<img loading="lazy">`: the source stays inactive until its element
 * comes near the viewport (the hub's `watchNear`: an IntersectionObserver), and goes inactive
 * again once it has been farther for FAR_AWAY_MS, timed on the hub's clock. An inactive source
 * makes no request and keeps what it showed. Eager (the default), the source is always active.
 */
export class LazyPolling implements ReactiveController {
  readonly #host: ReactiveControllerHost & Element;
  readonly #source: () => Switchable;
  #lazy = false;
  #stopWatching: (() => void) | undefined;
  #farTimer: unknown;

  constructor(host: ReactiveControllerHost & Element, source: () => Switchable) {
    this.#host = host;
    this.#source = source;
    host.addController(this);
  }

  /** Lazy or eager, before the source is given its address: a lazy one never asks before it is near. */
  set lazy(lazy: boolean) {
    if (lazy === this.#lazy) return;
    this.#lazy = lazy;
    this.#source().active = !lazy;
    if (lazy) this.hostConnected();
    else this.hostDisconnected();
  }

  hostConnected(): void {
    if (this.#lazy && !this.#stopWatching && this.#host.isConnected)
      this.#stopWatching = getHub().watchNear(this.#host, this.#onNear);
  }

  hostDisconnected(): void {
    this.#stopWatching?.();
    this.#stopWatching = undefined;
    this.#clearTimer();
  }

  readonly #onNear = (near: boolean): void => {
    this.#clearTimer();
    const source = this.#source();
    if (near) source.active = true;
    else if (source.active)
      this.#farTimer = getHub().clock.setTimeout(() => (source.active = false), FAR_AWAY_MS);
  };

  #clearTimer(): void {
    if (this.#farTimer !== undefined) getHub().clock.clearTimeout(this.#farTimer);
    this.#farTimer = undefined;
  }
}
