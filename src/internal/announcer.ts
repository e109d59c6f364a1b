/**
 * The text of a polite live region. Says a message only when it differs from the last one and
 * at most once per `minGapMs`, so a widget that updates every 3 s does not talk every 3 s.
 */
export class Announcer {
  /** What the live region holds now. */
  text = '';
  readonly #minGapMs: number;
  #lastAt = -Infinity;

  constructor(minGapMs = 30_000) {
    this.#minGapMs = minGapMs;
  }

  /** `urgent` news (a site missing from a merge) skips the gap. */
  announce(message: string | undefined, now: number, urgent = false): void {
    if (!message || message === this.text || (!urgent && now - this.#lastAt < this.#minGapMs)) return;
    this.text = message;
    this.#lastAt = now;
  }
}

/** The new first item when the first item changed since `previous` (none on the first data). */
export function newLeader<T>(current: readonly T[], previous: readonly T[] | undefined, key: (item: T) => string): T | undefined {
  const [leader] = current;
  const [previousLeader] = previous ?? [];
  return leader && previousLeader && key(leader) !== key(previousLeader) ? leader : undefined;
}
