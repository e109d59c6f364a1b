/**
 * The end of an outage. While the upstream does not answer, each key of a site backs off on its
 * own, doubling up to `backoffMaxMs` (30 s): a key whose last try failed just before the service
 * came back would wait that long again, its pollers reading a stale copy, while the site's other
 * keys were fresh, and then come back with no slot of its own in the plan (seed 13118: a query
 * back 30 s after the outage, filled at the tick, read 3.5 s old). So the site's first answer
 * after a whole interval without a failure ends the backoff of each of its polled keys that
 * failed for want of an answer, here and on the shared tier. Not its first answer after the last
 * failure: in a partial outage answers and failures alternate, and each answer ending the
 * backoffs sent the failing keys back at once, off the plan, into the sliding minute the plan
 * needed 60 s later (seed 18657). A key whose answer came and was refused (a 4xx, a body we
 * cannot read) keeps its backoff: that is the key's own fault, and an answer for another key
 * says nothing of it.
 */
import type { FailureReason } from '../upstream.ts';
import type { KeyContext, KeyState, PolledKeys } from './polled-keys.ts';

/** A failure that says the service did not answer (or could not, now), not that this key's answer was refused. */
export function failedForWantOfAnswer(reason: FailureReason, status: number | undefined): boolean {
  if (reason === 'status') return status !== undefined && status >= 500;
  return reason === 'timeout' || reason === 'network' || reason === 'cut' || reason === 'rate_limited';
}

/**
 * What the site's first answer after its failures ends of one key's backoff: none (no backoff
 * running, or one of its own), the one here (learned from the tier: another instance failed it,
 * and ends it there), or here and on the tier (this instance's own failures).
 */
export function backoffToEnd(state: KeyState, now: number): 'none' | 'here' | 'everywhere' {
  if (state.retryAt <= now || !state.outage) return 'none';
  return state.failures > 0 ? 'everywhere' : 'here';
}

export interface SiteRecoveryParts {
  keys: PolledKeys;
  now: () => number;
  /** How long a site's calls must go without a failure before an answer says it is back: one interval. */
  quietMs: number;
  /** Ends the key's backoff on the shared tier, if there is one. */
  endShared: (key: string, context: KeyContext) => void;
}

export class SiteRecovery {
  readonly #keys: PolledKeys;
  readonly #now: () => number;
  readonly #quietMs: number;
  readonly #endShared: SiteRecoveryParts['endShared'];
  /** Per site with a failure for want of an answer since its last answer: when the latest one was. */
  readonly #failedAt = new Map<string, number>();

  constructor(parts: SiteRecoveryParts) {
    this.#keys = parts.keys;
    this.#now = parts.now;
    this.#quietMs = parts.quietMs;
    this.#endShared = parts.endShared;
  }

  /** A fill of the site's failed for want of an answer, now. */
  failed(site: string): void {
    this.#failedAt.set(site, this.#now());
  }

  /**
   * An answer for the site arrived upstream at `fetchedAt` (a fill of ours, or another
   * instance's read from the tier). A whole interval after the site's last failure: the failures
   * are over, and so are the backoffs they started.
   */
  answered(site: string, fetchedAt: number): void {
    const failedAt = this.#failedAt.get(site);
    if (failedAt === undefined || fetchedAt - failedAt < this.#quietMs) return;
    this.#failedAt.delete(site);
    const now = this.#now();
    for (const key of this.#keys.polledOn(site)) {
      const state = this.#keys.peek(key);
      const end = state ? backoffToEnd(state, now) : 'none';
      if (end === 'none') continue;
      if (end === 'everywhere' && state!.context) this.#endShared(key, state!.context);
      state!.retryAt = 0;
      state!.failures = 0;
    }
  }
}
