/** Time source and timers of the poll hub, injectable so tests can drive time by hand. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The first wall-clock multiple of `interval` strictly after `time`: every widget on the page
 * (and on every page with a synchronised clock) updates in the same instant.
 */
export function nextMultiple(time: number, interval: number): number {
  return (Math.floor(time / interval) + 1) * interval;
}
