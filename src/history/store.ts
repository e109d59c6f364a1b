/**
 * Where history lives. Every store answers the same questions; the memory store is the base of
 * the others and the browser's (Storybook): the file store adds a crash-safe log under
 * PULSE_DATA_DIR, the Redis store shares one history between instances.
 */
import { SampleBook } from './sample-book.ts';
import { minuteOf } from './samples.ts';

export interface HistoryStore {
  /**
   * Whether this instance should record minute `t` of `host`: the minute has no sample yet and,
   * with several instances, this one holds the minute's lease.
   */
  claim(host: string, t: number): Promise<boolean>;
  /** Records minute `t` unless it has a sample; whether it did. */
  record(host: string, t: number, values: readonly number[]): Promise<boolean>;
  /** One metric (index in HISTORY_METRICS) per minute from `from` for `minutes`; NaN = gap. */
  column(host: string, metric: number, from: number, minutes: number): Promise<Float64Array>;
  close(): Promise<void>;
  /** Whether the store can be written now (a shared store may be unreachable); default true. */
  readonly online?: boolean;
}

/** History in this process only: lost on restart. For tests, the browser, and `PULSE_DATA_DIR=memory`. */
export class MemoryStore implements HistoryStore {
  protected readonly book = new SampleBook();

  async claim(host: string, t: number): Promise<boolean> {
    return !this.book.has(host, minuteOf(t));
  }

  async record(host: string, t: number, values: readonly number[]): Promise<boolean> {
    const recorded = this.book.put(host, minuteOf(t), values);
    this.book.prune(t);
    return recorded;
  }

  async column(host: string, metric: number, from: number, minutes: number): Promise<Float64Array> {
    return this.book.column(host, metric, from, minutes);
  }

  async close(): Promise<void> {}
}

/** Values of one metric for minutes `[from, from + minutes)`, without a store: the simulator's backfill. */
export type Baseline = (
  host: string,
  metric: number,
  from: number,
  minutes: number,
) => Float64Array | undefined;

/**
 * A store whose minutes before `until` that hold no sample are read from `baseline` (demo mode:
 * the simulator's model), so the demo shows weeks of history at once. Recorded minutes win.
 */
export function withBaseline(store: HistoryStore, baseline: Baseline, until: number): HistoryStore {
  return {
    get online() {
      return store.online;
    },
    claim: (host, t) => store.claim(host, t),
    record: (host, t, values) => store.record(host, t, values),
    close: () => store.close(),
    async column(host, metric, from, minutes) {
      const column = await store.column(host, metric, from, minutes);
      const before = Math.min(minutes, Math.max(0, Math.ceil((until - from) / 60_000)));
      const base = before > 0 ? baseline(host, metric, from, before) : undefined;
      if (base) for (let i = 0; i < before; i++) if (Number.isNaN(column[i]!)) column[i] = base[i]!;
      return column;
    },
  };
}
