import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { getHub, type Clock } from '../client/index.ts';

/**
 * The text of a polite live region, so a widget that updates every 3 s does not talk every 3 s.
 * An element tells it the latest state in words; it is said when it differs from what was last
 * said, at most once per `minGapMs`. A state reached during that quiet time is said when the
 * quiet time ends, if it still differs then: a change is never lost because it came too soon,
 * and a change that was undone in the meantime is not said at all.
 */
export class Announcer implements ReactiveController {
  /** What the live region holds now. */
  text = '';
  readonly #host: ReactiveControllerHost;
  readonly #minGapMs: number;
  /** The state the reader last heard, or saw when the data first came. */
  #said = '';
  #lastAt = -Infinity;
  #pending: string | undefined;
  #timer: unknown;
  #clock: Clock | undefined;

  constructor(host: ReactiveControllerHost, minGapMs = 30_000) {
    this.#host = host;
    this.#minGapMs = minGapMs;
    host.addController(this);
  }

  /** The state the reader last heard, or saw when the data first came. */
  get said(): string {
    return this.#said;
  }

  hostDisconnected(): void {
    this.#cancel();
  }

  /** The state shown with the first data: not said (the reader sees it arrive), but the baseline of what follows. */
  note(message: string | undefined): void {
    if (message === undefined) return;
    this.#cancel();
    this.#said = message;
  }

  /**
   * The latest state: said now, or when the quiet time ends. The state last said again cancels
   * what was waiting; `undefined` (nothing to tell) changes nothing. `urgent` news (a site missing
   * from a merge, the reader's own freeze or drill-down) is said at once, skipping the quiet time.
   */
  announce(message: string | undefined, { urgent = false } = {}): void {
    if (message === undefined) return;
    if (message === this.#said) {
      this.#cancel();
      return;
    }
    const clock = getHub().clock;
    const wait = this.#lastAt + this.#minGapMs - clock.now();
    if (urgent || wait <= 0) {
      this.#cancel();
      this.#say(message, clock.now());
      return;
    }
    this.#pending = message;
    if (this.#timer === undefined) {
      this.#clock = clock;
      this.#timer = clock.setTimeout(() => {
        this.#timer = undefined;
        const pending = this.#pending;
        this.#pending = undefined;
        if (pending !== undefined) this.#say(pending, clock.now());
      }, wait);
    }
  }

  #say(message: string, now: number): void {
    this.text = this.#said = message;
    this.#lastAt = now;
    this.#host.requestUpdate();
  }

  #cancel(): void {
    this.#pending = undefined;
    if (this.#timer === undefined) return;
    this.#clock?.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
