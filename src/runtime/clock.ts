/**
 * Time, as the cache endpoint and the history recorder see it. Every part of `src/server` and
 * `src/history` reaches the time and its timers through one `Clock` passed in its options, so a
 * test or the deterministic simulation (test/simulation/) can run the whole cache on a virtual
 * clock. `realClock` is the only code in those folders that touches real timers (a test fails
 * when another one appears).
 */

/** A pending timer of a `Clock`; opaque to its users. */
export type TimerHandle = object;

export interface Clock {
  /** Wall-clock time in ms since the epoch. It may step (`TierTime` moves onto a shared tier's clock). */
  now(): number;
  /**
   * Ms on a clock that never steps, whose differences alone mean anything: how long something
   * took. A fill whose call a step of `now()` split had its start on one time and its end on the
   * other, and was answered already stale (simulation seed 29169).
   */
  monotonic(): number;
  /** Runs `callback` once after `ms`. Real timers never keep the process alive on their own. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  /** Resolves after `ms`; rejects with the signal's reason if it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A signal that aborts with a `TimeoutError` DOMException after `ms`. */
  timeout(ms: number): AbortSignal;
}

/** The one place where real time and real timers are read. */
export const realClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (callback, ms) => {
    const timer = globalThis.setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) =>
    globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout> | undefined),
  sleep: (ms, signal) => sleepOn(realClock, ms, signal),
  timeout: (ms) => AbortSignal.timeout(ms),
};

/** `sleep` written on a clock's own timers, for any `Clock`. */
export function sleepOn(
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const timeoutError = () => new DOMException('The operation timed out.', 'TimeoutError');

/** `timeout` written on a clock's own timers, for any `Clock`. */
export function timeoutOn(clock: Pick<Clock, 'setTimeout'>, ms: number): AbortSignal {
  const controller = new AbortController();
  clock.setTimeout(() => controller.abort(timeoutError()), ms);
  return controller.signal;
}

/** One operation's deadline: see {@link deadline}. */
export interface Deadline {
  /** Aborts with a `TimeoutError` after `ms`, or with the reason of the signal it also follows. */
  readonly signal: AbortSignal;
  /** Whether `ms` passed (rather than the other signal aborting). */
  readonly expired: boolean;
  /** The operation is done: its timer is cancelled and the other signal no longer followed. */
  clear(): void;
}

/**
 * A deadline of `ms` on `clock` for one operation, which also ends when `also` aborts. Unlike
 * `AbortSignal.any([clock.timeout(ms), also])`, nothing of it outlives the operation once
 * cleared: no timer left to fire, no abort event to build, no listener kept on `also`.
 */
export function deadline(
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  ms: number,
  also?: AbortSignal,
): Deadline {
  const controller = new AbortController();
  let expired = false;
  const timer = clock.setTimeout(() => {
    expired = true;
    controller.abort(timeoutError());
  }, ms);
  const follow = () => controller.abort(also!.reason);
  if (also?.aborted) follow();
  else also?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear() {
      clock.clearTimeout(timer);
      also?.removeEventListener('abort', follow);
    },
  };
}

/** A clock whose `now` is given and whose timers are real: what `now` alone in the options meant. */
export function clockWithNow(now: () => number): Clock {
  return { ...realClock, now, monotonic: now };
}

/**
 * lru-cache options that make its TTLs count on `clock`: its `perf` reads the clock, and no
 * cached "now" (lru-cache debounces `perf.now()` with a real timer unless `ttlResolution` is 0).
 */
export function lruTime(clock: Clock): { perf: { now(): number }; ttlResolution: number } {
  return { perf: { now: () => clock.now() }, ttlResolution: 0 };
}
