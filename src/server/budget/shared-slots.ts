import type { Logger } from 'pino';
import type { SharedTier } from '../tier/shared-tier.ts';
import type { TierTime } from '../tier/tier-time.ts';
import { WindowSlots, type SlotAnswer, type SlotSource } from './host-budget.ts';

/** How a host's slots are taken: from the tier, alone, or (held) on the way back to the tier. */
interface SlotMode {
  state: 'shared' | 'alone' | 'returning';
  /** No slot before then: a switch waits out the windows the other side may have counted. */
  holdUntil: number;
  /** No burst before then: the tier's minute may lack calls made alone. */
  calmUntil: number;
  /** Alone: not before then is the way back to the tier tried again. */
  tryBackAt: number;
  /** Going alone: no slot before then, the tier's last word on the calls of its minute. */
  aloneFrom: number;
  /** The last slot granted alone (the tier never counted it), or 0. */
  lastAloneAt: number;
}

/** Windows between tries to go back to a tier that says it is up. */
const TRY_BACK_WINDOWS = 5;

/**
 * The budget counted in Redis across instances, and while Redis is unreachable, this instance's
 * share of it counted here: one fill per `windowMs × instances / fills`. N instances acting
 * alone then make at most 60 000 × fills / windowMs + N calls in any sliding minute: 183 for 3
 * instances of the default 3 per second (a minute overlaps at most 61 windows of each).
 *
 * A switch between the two waits out one whole window after the window it happens in, so no
 * window holds calls counted by both sides (each side keeps its windows to 3 calls, and a
 * sliding minute overlaps 61 windows): switched at once, a minute across a loss of the tier
 * held 184. Back on the tier, for a minute no burst, by any instance (`SharedTier.calm`): the
 * tier's minute log lacks the calls made alone (all of them, when it came back empty), and a
 * burst on top of them held 204.
 * While the tier says it is up but cannot answer for this host (a Redis Cluster whose master
 * for the host's budget is down), the way back is tried every few windows, not on every call.
 */
export class SharedSlots implements SlotSource {
  readonly #tier: SharedTier;
  readonly #fills: number;
  readonly #windowMs: number;
  readonly #burst: number;
  readonly #alone: WindowSlots;
  readonly #instances: number;
  readonly #logger: Logger;
  readonly #time?: Pick<TierTime, 'ask'>;
  readonly #modes = new Map<string, SlotMode>();
  #closed = false;

  constructor(
    tier: SharedTier,
    fills: number,
    windowMs: number,
    burst: number,
    instances: number,
    logger: Logger,
    time?: Pick<TierTime, 'ask'>,
  ) {
    this.#tier = tier;
    this.#fills = fills;
    this.#windowMs = windowMs;
    this.#burst = burst;
    this.#alone = new WindowSlots(1, (windowMs * instances) / fills);
    this.#instances = instances;
    this.#logger = logger;
    this.#time = time;
  }

  async take(host: string, now: number, newQueryWindow?: number): Promise<SlotAnswer> {
    let mode = this.#modes.get(host);
    if (!mode)
      this.#modes.set(
        host,
        (mode = {
          state: 'shared',
          holdUntil: 0,
          calmUntil: 0,
          tryBackAt: 0,
          aloneFrom: 0,
          lastAloneAt: 0,
        }),
      );
    if (now < mode.holdUntil) return this.#wait(mode, now);
    if (mode.state === 'alone' && this.#tier.online && now >= mode.tryBackAt) {
      mode.state = 'returning';
      // The tier's minute lacks this instance's calls made alone: no instance may burst on it
      // until they leave the minute. Kept here only, a calm held this instance back while an
      // instance started meanwhile burst, and a minute held 186 (seed 19200).
      if (now < mode.calmUntil) void this.#tier.calm(host, mode.calmUntil - now);
      // Held while a window this instance granted in alone may still be open: the tier did not
      // count those slots. Not after that: held on every return, an instance that had granted
      // nothing alone for 30 s (polled elsewhere since the tier came back) still made its first
      // refill wait two windows, and its pollers read data a tick old (seed 150).
      if (now < this.#windowAfterNext(mode.lastAloneAt)) return this.#hold(mode, now);
    }
    let shared: SlotAnswer | undefined;
    if (mode.state !== 'alone') {
      const answered = this.#time?.ask();
      shared = await this.#tier.takeSlot(
        host,
        this.#fills,
        this.#windowMs,
        now < mode.calmUntil ? this.#fills : this.#burst,
        newQueryWindow,
      );
      // Closing cuts the tier's answer short: that is no outage to act alone through, and no call follows.
      if (shared === undefined && this.#closed)
        return { granted: false, waitMs: this.#windowMs, coolingDown: false };
      if (shared === undefined) {
        // Not back after all: nothing was counted on the tier since the hold, so alone at once.
        const returning = mode.state === 'returning';
        mode.state = 'alone';
        mode.tryBackAt = now + TRY_BACK_WINDOWS * this.#windowMs;
        if (!returning) return this.#hold(mode, now);
      } else {
        mode.state = 'shared';
        // Each slot the tier grants reads its clock: this instance keeps time on it (tier-time.ts).
        if (shared.granted) answered?.(shared.at);
        // Alone, this instance keeps 1/instances of the windows' rate: to leave out what the
        // minute owes by itself (only instances that took a slot heard the tier), it waits that
        // many times the hold.
        if (shared.aloneHoldMs !== undefined) mode.aloneFrom = now + shared.aloneHoldMs * this.#instances;
      }
    }
    // Alone, the windows are this instance's own, counted here: no ask crosses one on its way.
    const answer = shared ?? this.#alone.take(host, now);
    if (shared === undefined && answer.granted) {
      mode.calmUntil = now + 60 * this.#windowMs;
      mode.lastAloneAt = now;
    }
    // When the slot was counted (the shared tier's clock, or ours alone): what the 183 bound is about.
    if (answer.granted)
      this.#logger.debug(
        { site: host, grantedAt: answer.at, shared: shared !== undefined },
        'budget slot granted',
      );
    return answer;
  }

  /**
   * Nothing until the start of the window after next, and going alone, not before the tier's
   * minute allows: a cold dashboard's burst just before the tier was lost, then every instance's
   * share at once, held 199 in a sliding minute (simulation seed 16).
   */
  #hold(mode: SlotMode, now: number): SlotAnswer {
    mode.holdUntil = Math.max(this.#windowAfterNext(now), mode.state === 'alone' ? mode.aloneFrom : 0);
    return this.#wait(mode, now);
  }

  /** The start of the window after next: two windows after the one `at` falls in. */
  #windowAfterNext(at: number): number {
    return at - (at % this.#windowMs) + 2 * this.#windowMs;
  }

  #wait(mode: SlotMode, now: number): SlotAnswer {
    return { granted: false, waitMs: mode.holdUntil - now, coolingDown: false };
  }

  close(): void {
    this.#closed = true;
  }

  cooldown(host: string, ms: number): void {
    void this.#tier.cooldown(host, ms);
  }
}
