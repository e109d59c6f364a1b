/**
 * The per-host upstream budget: at most `fills` upstream calls per fixed window of `windowMs`,
 * windows aligned on the clock. The upstream allows 200 calls per minute per host; a sliding
 * minute overlaps at most 61 aligned 1 s windows, so 3 per window can never exceed 183.
 *
 * Waiters queue per host in arrival order. A key is queued at most once (its fill is coalesced),
 * so when more keys compete than the budget carries, each one's refresh interval stretches by
 * the same amount: round-robin, not first-come-forever.
 *
 * A host can also be cooled down (429, `X-RateLimit-Remaining: 0`): nothing is granted until the
 * cooldown ends. Written here rather than with rate-limiter-flexible's queue because a waiter
 * whose clients all left must be dropped without spending a slot, and because windows must be
 * aligned on the same injectable clock the cache uses.
 */
export class BudgetClosedError extends Error {
  override name = 'BudgetClosedError';
}

interface Waiter {
  wanted: () => boolean;
  resolve: (granted: boolean) => void;
  reject: (error: Error) => void;
}

interface HostState {
  windowStart: number;
  used: number;
  cooldownUntil: number;
  queue: Waiter[];
  timer?: ReturnType<typeof setTimeout>;
}

export class HostBudget {
  readonly #fills: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #hosts = new Map<string, HostState>();
  #closed = false;

  constructor(fills: number, windowMs: number, now: () => number) {
    this.#fills = fills;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /**
   * Resolves `true` once a call to `host` may be made now, `false` if the waiter was no longer
   * wanted when its turn came (no slot spent). `waited` is called once if it had to queue.
   */
  acquire(host: string, wanted: () => boolean, waited?: () => void): Promise<boolean> {
    if (this.#closed) return Promise.reject(new BudgetClosedError('closed'));
    const state = this.#state(host);
    return new Promise<boolean>((resolve, reject) => {
      const waiter = { wanted, resolve, reject };
      state.queue.push(waiter);
      this.#pump(host, state);
      if (state.queue.includes(waiter)) waited?.();
    });
  }

  /** No calls to `host` before `until` (ms on the injected clock). A later cooldown wins. */
  cooldown(host: string, until: number): void {
    const state = this.#state(host);
    state.cooldownUntil = Math.max(state.cooldownUntil, until);
  }

  cooldownUntil(host: string): number {
    return this.#hosts.get(host)?.cooldownUntil ?? 0;
  }

  close(): void {
    this.#closed = true;
    for (const state of this.#hosts.values()) {
      clearTimeout(state.timer);
      for (const waiter of state.queue.splice(0)) waiter.reject(new BudgetClosedError('closed'));
    }
  }

  #state(host: string): HostState {
    let state = this.#hosts.get(host);
    if (!state) {
      state = { windowStart: 0, used: 0, cooldownUntil: 0, queue: [] };
      this.#hosts.set(host, state);
    }
    return state;
  }

  #pump(host: string, state: HostState): void {
    while (state.queue.length > 0) {
      const now = this.#now();
      if (now < state.cooldownUntil) return this.#wake(host, state, state.cooldownUntil - now);
      const windowStart = now - (now % this.#windowMs);
      if (windowStart !== state.windowStart) {
        state.windowStart = windowStart;
        state.used = 0;
      }
      if (state.used >= this.#fills) return this.#wake(host, state, windowStart + this.#windowMs - now);
      const waiter = state.queue.shift()!;
      if (!waiter.wanted()) {
        waiter.resolve(false);
        continue;
      }
      state.used += 1;
      waiter.resolve(true);
    }
  }

  #wake(host: string, state: HostState, delayMs: number): void {
    if (state.timer !== undefined) return;
    state.timer = setTimeout(() => {
      state.timer = undefined;
      this.#pump(host, state);
    }, Math.max(1, delayMs));
    state.timer.unref();
  }
}
