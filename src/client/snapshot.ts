/** What a subscriber knows about one polled URL at one moment. Immutable: a change is a new object. */
export interface PollSnapshot<T = unknown> {
  /** The last good, validated body (structurally shared with the one before). */
  readonly data: T | undefined;
  /** Why the last attempt failed; cleared by the next success. */
  readonly error: PollError | undefined;
  /** `data` is shown but may be out of date: the last attempt failed or the data is old. */
  readonly stale: boolean;
  /** The page is hidden or offline, so nothing is polled. */
  readonly paused: boolean;
  /** When the data was produced, on this page's clock (from `Last-Modified`). */
  readonly updatedAt: number | undefined;
}

export type PollErrorKind = 'network' | 'http' | 'invalid' | 'source';

/** A failure told in words a reader of the page understands: never a stack trace. */
export interface PollError {
  readonly kind: PollErrorKind;
  readonly message: string;
  /** HTTP status when the server answered. */
  readonly status?: number;
  /** The server's own explanation of a refusal (our cache endpoint's `error.message`), as sent. */
  readonly reason?: string;
  /** The server's error code (our cache endpoint's `error.code`), e.g. `upstream_invalid`. */
  readonly code?: string;
}

export const INITIAL_SNAPSHOT: PollSnapshot<never> = Object.freeze({
  data: undefined,
  error: undefined,
  stale: false,
  paused: false,
  updatedAt: undefined,
});

/** True when a host has something new to render (a change of `updatedAt` alone is not). */
export function changesView(previous: PollSnapshot, next: PollSnapshot): boolean {
  return (
    previous.data !== next.data ||
    previous.error !== next.error ||
    previous.stale !== next.stale ||
    previous.paused !== next.paused
  );
}

export function sameSnapshot(a: PollSnapshot, b: PollSnapshot): boolean {
  return !changesView(a, b) && a.updatedAt === b.updatedAt;
}
