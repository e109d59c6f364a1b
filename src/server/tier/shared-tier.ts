/**
 * The shared tier: what several cache instances share so that they make one upstream fill per
 * key per TTL between them and share one per-host budget. `RedisTier` (redis-tier.ts) shares
 * through Redis (`PULSE_REDIS_URL`); the primary of `--workers` shares through IPC
 * (workers/coordinator.ts, workers/ipc-tier.ts). The cache's side of it is cache/shared-keys.ts,
 * the budget's budget/shared-slots.ts.
 *
 * - Entries: every stored encoding, the ETag and the timing, as one value kept for the freshness
 *   plus the stale window, so any instance can serve what another one fetched.
 * - A lease per key: the instance that takes it fills; it is never deleted, only left to
 *   expire, and once the budget grants the call it is set to expire when the key may be filled
 *   again (the refresh plan's least gap between two fills of a key; raw data: its TTL), so no
 *   other instance can start a fill for that key sooner. A failed fill turns it into a shared
 *   backoff, which ends early once the key's site answers again.
 * - The budget: 3 fills per window per host counted on the tier's own clock, so instance clocks
 *   cannot disagree about which window it is; cooldowns, and calms (no burst while the tier's
 *   minute lacks calls made alone), are shared as keys that expire.
 * - Fold groups' members (scored by when each stops counting): every instance folds the queries
 *   polled on all of them into the same wide query, which its lease then fills once.
 */
import type { SlotAnswer } from '../budget/host-budget.ts';
import type { StoredResponse } from '../../runtime/stored-response.ts';

export type LeaseClaim =
  | { kind: 'won'; token: string }
  | { kind: 'held'; ms: number }
  /** The last fill of this key failed: nobody tries again before `ms`. */
  | { kind: 'backoff'; ms: number }
  | { kind: 'offline' };

/**
 * What instances share: entries, a fill lease per key, the per-host budget and cooldowns. Every
 * method answers `undefined` (or `offline`) at once when the tier cannot, and the caller then acts
 * alone. `RedisTier` shares through Redis; the primary of `--workers` shares through IPC.
 */
export interface SharedTier {
  readonly online: boolean;
  /** The shared entry of `key`, or `undefined` when there is none or the tier cannot say. */
  read(key: string): Promise<StoredResponse | undefined>;
  /** Stores `stored` for `keepMs` (freshness plus stale window) and clears the key's failure count. */
  write(key: string, stored: StoredResponse, keepMs: number): Promise<void>;
  /** Takes the fill lease of `key` for `ms`, unless another instance holds it. */
  claim(key: string, ms: number): Promise<LeaseClaim>;
  confirm(key: string, token: string, ttlMs: number): Promise<boolean | 'offline'>;
  fail(key: string, baseMs: number, maxMs: number): Promise<number | undefined>;
  /**
   * The key's site answers again: its shared backoff (if the lease is one) ends, and its
   * failure count starts again. A lease held by a fill stays.
   */
  endBackoff(key: string): Promise<void>;
  /**
   * One of `fills` slots of the host's current window of `windowMs` (up to `burst` while the last
   * minute used less than half its calls: `WindowSlots`' rule), counted across instances, and
   * when the tier granted it (its clock). `newQueryWindow`: a new query's slot, its share counted
   * in the window starting then on the instance's clock (`crossedWindowWaitMs`).
   */
  takeSlot(
    host: string,
    fills: number,
    windowMs: number,
    burst: number,
    newQueryWindow?: number,
  ): Promise<SlotAnswer | undefined>;
  /**
   * The tier's clock as it counts `host`'s budget (on a Redis Cluster, the clock of the master
   * holding it), read between the ask and its answer; `undefined` when the tier cannot say.
   */
  time(host: string): Promise<number | undefined>;
  /** No calls to `host` by any instance for `ms`; a longer cooldown already set wins. */
  cooldown(host: string, ms: number): Promise<void>;
  /**
   * No burst of `host` by any instance for `ms` (every slot at the windows' rate): the tier's
   * minute lacks calls an instance made alone. A longer calm already set wins.
   */
  calm(host: string, ms: number): Promise<void>;
  /** `member` of fold group `group` is polled here; it counts as polled for `keepMs`. */
  join(group: string, member: string, keepMs: number): Promise<void>;
  /** The members of `group` polled on any instance, or `undefined` when the tier cannot say. */
  members(group: string): Promise<string[] | undefined>;
  close(): void;
}

/** Distinct queries one fold group remembers across instances; the oldest goes past it. */
export const MAX_GROUP_MEMBERS = 256;
