/**
 * Node tests only. A `Clock` (src/runtime/clock.ts) that moves only when told: timers run in the
 * order of their due time (ties in the order they were set), each with `now()` reading its own
 * due time, and every promise chain a timer starts settles before the next timer runs. Nothing
 * in it reads real time, so a run that starts from the same state replays exactly.
 */
import { sleepOn, timeoutOn, type Clock, type TimerHandle } from '../../src/runtime/clock.ts';

interface Timer {
  at: number;
  order: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * Lets every pending promise continuation run: Node drains the whole microtask queue (and
 * `process.nextTick`) before it runs an immediate, so one turn of the event loop settles every
 * chain that waits on nothing real.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class VirtualClock implements Clock {
  #now: number;
  #order = 0;
  /** A binary min-heap on (at, order). */
  readonly #heap: Timer[] = [];

  constructor(start = 1_800_000_000_000) {
    this.#now = start;
  }

  readonly now = (): number => this.#now;
  /** Virtual time never steps. */
  readonly monotonic = (): number => this.#now;

  readonly setTimeout = (callback: () => void, ms: number): TimerHandle => {
    const timer: Timer = {
      at: this.#now + Math.max(0, ms),
      order: (this.#order += 1),
      callback,
      cancelled: false,
    };
    this.#push(timer);
    return timer;
  };

  readonly clearTimeout = (handle: TimerHandle | undefined): void => {
    if (handle) (handle as Timer).cancelled = true;
  };

  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> => sleepOn(this, ms, signal);

  readonly timeout = (ms: number): AbortSignal => timeoutOn(this, ms);

  /** Timers still due, cancelled ones left out. */
  get pending(): number {
    return this.#heap.filter((timer) => !timer.cancelled).length;
  }

  /** Runs every timer due within `ms` from now, each at its own time, then stands at now + `ms`. */
  async advance(ms: number): Promise<void> {
    await this.runUntil(this.#now + ms);
  }

  /**
   * Runs every timer due up to `until`, each at its own time, then stands at `until`. Timers due
   * at one instant run together, in the order they were set, before the chains they start settle.
   */
  async runUntil(until: number): Promise<void> {
    await settle();
    for (;;) {
      const next = this.#heap[0];
      if (!next || next.at > until) break;
      this.#now = Math.max(this.#now, next.at);
      while (this.#heap[0] && this.#heap[0].at <= this.#now) {
        const timer = this.#heap[0];
        this.#pop();
        if (!timer.cancelled) timer.callback();
      }
      await settle();
    }
    this.#now = Math.max(this.#now, until);
    await settle();
  }

  #before(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.order < b.order);
  }

  #push(timer: Timer): void {
    const heap = this.#heap;
    heap.push(timer);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#before(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && this.#before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && this.#before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === index) break;
      [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
      index = smallest;
    }
  }
}

/** Whether `work` has settled, either way, as far as the promise continuations run so far know. */
function settledYet(work: Promise<unknown>): () => boolean {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  return () => settled;
}

/**
 * Settles `work` while `clock` moves in `stepMs` steps, `limitMs` at most, for work that waits on
 * a timer (a fold group gathering for 100 ms, a retry) and on real sockets too. Past the limit the
 * clock stands still and `work` is simply awaited: keep the limit under every timeout the work
 * must not meet, and a slow machine only makes the test wait longer, never see a timeout.
 */
export async function settleWhileMoving<T>(
  clock: VirtualClock,
  work: Promise<T>,
  limitMs: number,
  stepMs = 10,
): Promise<T> {
  const settled = settledYet(work);
  for (let moved = 0; !settled() && moved < limitMs; moved += stepMs) {
    await clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return work;
}

/**
 * Moves `clock` in `stepMs` steps until `condition` holds, for in-process work that waits only
 * on the clock's timers and on promises: nothing real is waited for, so the run replays exactly.
 * Fails once `limitMs` of virtual time have passed, so work that would wait forever is a
 * failure that names `what`, not a hang.
 */
export async function moveUntil(
  clock: VirtualClock,
  condition: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 60_000,
  stepMs = 10,
): Promise<void> {
  for (let moved = 0; !(await condition()); moved += stepMs) {
    if (moved >= limitMs) throw new Error(`still waiting for ${what} after ${limitMs} ms of virtual time`);
    await clock.advance(stepMs);
  }
}

/** Moves `clock` (as {@link moveUntil}) until `work` settles, and returns what it settled with. */
export async function moveUntilSettled<T>(
  clock: VirtualClock,
  work: Promise<T>,
  limitMs = 60_000,
  stepMs = 10,
): Promise<T> {
  await moveUntil(clock, settledYet(work), 'the work to settle', limitMs, stepMs);
  return work;
}
