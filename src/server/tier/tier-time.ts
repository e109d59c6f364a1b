/**
 * The time of an instance that shares a tier: its own clock, moved onto the tier's. The budget's
 * windows are counted on the tier's clock (Redis's `TIME`, or the `--workers` primary's), and
 * every instance plans its refills in them and judges by its own clock which tick a copy was
 * fetched for. Each on its own clock, instances 60 and 100 ms apart from the tier's split a
 * tick's refills across windows the plan had not counted them in, refilled one key twice, and a
 * page read data 4 s old (simulation seed 533, its clocks drawn up to 100 ms apart). On the
 * tier's time they all plan the same windows.
 *
 * Every slot the tier grants carries its clock's reading, made between the ask and the answer:
 * the tier's clock is then ahead of ours by between `tierAt − receivedAt` and `tierAt −
 * sentAt`. The offset kept moves only when an answer proves it wrong, to the middle of that
 * span, so the trip's jitter moves nothing and the time never wanders within it. The tier's
 * clock is also read at once and every minute: an instance whose polls the others' refills
 * serve takes no slot for minutes, and on its own clock 9 s behind it served their 10 s old
 * copies as fresh (seed 145 with clocks 10 s apart). A move steps the time, as NTP steps a
 * clock: by the whole skew at the first reading (at start, when the tier answers then, before
 * anything is planned); later by what the clocks drifted in a minute.
 */
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../runtime/clock.ts';
import type { SharedTier } from './shared-tier.ts';

/** Between two readings of the tier's clock: clocks drift apart slowly. */
const FOLLOW_EVERY_MS = 60_000;
/** While the tier cannot say (Redis still connecting, or lost), it is asked again this soon. */
const FOLLOW_RETRY_MS = 1000;

/** A move of the offset this large is said in the log: the machine's clock is that far from the tier's. */
const NOTED_MOVE_MS = 100;

/**
 * The offset (ms the tier's clock is ahead of ours) to keep after one answer read at
 * `tierAt` on the tier's clock, asked at `sentAt` and read at `receivedAt` on ours.
 */
export function nextOffset(offset: number, sentAt: number, receivedAt: number, tierAt: number): number {
  const low = tierAt - receivedAt;
  const high = tierAt - sentAt;
  return offset >= low && offset <= high ? offset : Math.round((low + high) / 2);
}

export class TierTime implements Clock {
  readonly #base: Clock;
  readonly #logger: Logger;
  readonly #report?: (offsetMs: number) => void;
  #offset = 0;
  #timer?: TimerHandle;
  #closed = false;

  /** `report`: the offset, each time an answer is read. */
  constructor(base: Clock, logger: Logger, report?: (offsetMs: number) => void) {
    this.#base = base;
    this.#logger = logger;
    this.#report = report;
  }

  readonly now = (): number => this.#base.now() + this.#offset;
  readonly monotonic = (): number => this.#base.monotonic();
  readonly setTimeout = (callback: () => void, ms: number): TimerHandle =>
    this.#base.setTimeout(callback, ms);
  readonly clearTimeout = (handle: TimerHandle | undefined): void => this.#base.clearTimeout(handle);
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> => this.#base.sleep(ms, signal);
  readonly timeout = (ms: number): AbortSignal => this.#base.timeout(ms);

  /** Reads `tier`'s clock (as it counts `host`'s budget) now and every minute, until closed. */
  follow(tier: Pick<SharedTier, 'time'>, host: string): void {
    const read = async () => {
      const answered = this.ask();
      const tierAt = await tier.time(host);
      if (this.#closed) return;
      if (tierAt !== undefined) answered(tierAt);
      this.#timer = this.#base.setTimeout(
        () => void read(),
        tierAt === undefined ? FOLLOW_RETRY_MS : FOLLOW_EVERY_MS,
      );
    };
    void read();
  }

  close(): void {
    this.#closed = true;
    this.#base.clearTimeout(this.#timer);
  }

  /** An ask to the tier begins: the function returned takes the tier's clock as its answer read it. */
  ask(): (tierAt: number) => void {
    const sentAt = this.#base.now();
    return (tierAt) => {
      const before = this.#offset;
      this.#offset = nextOffset(before, sentAt, this.#base.now(), tierAt);
      this.#report?.(this.#offset);
      if (Math.abs(this.#offset - before) >= NOTED_MOVE_MS)
        this.#logger.info(
          { offsetMs: this.#offset },
          `this instance keeps time on the shared tier's clock (Redis's), which is ${Math.abs(this.#offset)} ms ${this.#offset > 0 ? 'ahead of' : 'behind'} its own`,
        );
    };
  }
}
