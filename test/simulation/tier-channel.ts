/**
 * The primary's IPC channel of `--workers`, in process: a worker's `IpcTier` talks through it to
 * one `Coordinator`, each message taking a millisecond each way on the virtual clock. Setting
 * `up` false loses the tier for everyone (messages go unanswered, `connected` is false).
 */
import type { Coordinator } from '../../src/server/workers/coordinator.ts';
import type { IpcChannel } from '../../src/server/workers/ipc-tier.ts';
import type { VirtualClock } from '../helpers/virtual-clock.node.ts';

/** Latency of one shared-tier message each way. */
const TIER_LATENCY_MS = 1;

export interface TierState {
  coordinator: Coordinator;
  up: boolean;
}

/** The primary's IPC channel, in process: each message takes `TIER_LATENCY_MS` each way on the clock. */
export class TierChannel implements IpcChannel {
  readonly #listeners: ((message: unknown) => void)[] = [];
  readonly #clock: VirtualClock;
  readonly #tier: TierState;

  constructor(clock: VirtualClock, tier: TierState) {
    this.#clock = clock;
    this.#tier = tier;
  }

  get connected(): boolean {
    return this.#tier.up;
  }

  on(_event: 'message', listener: (message: unknown) => void): this {
    this.#listeners.push(listener);
    return this;
  }

  send(message: unknown): boolean {
    if (!this.#tier.up) return false;
    this.#clock.setTimeout(() => {
      if (!this.#tier.up) return;
      const reply = this.#tier.coordinator.answer(message as Parameters<Coordinator['answer']>[0]);
      this.#clock.setTimeout(() => {
        if (this.#tier.up) for (const listener of this.#listeners) listener(reply);
      }, TIER_LATENCY_MS);
    }, TIER_LATENCY_MS);
    return true;
  }
}
