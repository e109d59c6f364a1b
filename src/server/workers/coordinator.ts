/**
 * The primary's side of `--workers` without Redis: what Redis holds for the shared tier (entries,
 * fill leases, failure counts, budget windows, cooldowns, fold groups' members) kept in the primary process and asked
 * for over IPC, with the semantics of the Lua scripts in tier/redis-tier.ts, on the primary's clock.
 * One process answers every worker in turn, so each operation is atomic as a script is on Redis.
 */
import { LRUCache } from 'lru-cache';
import { lruTime, realClock, type Clock } from '../../runtime/clock.ts';
import { WindowSlots, type SlotAnswer } from '../budget/host-budget.ts';
import { MAX_GROUP_MEMBERS } from '../tier/shared-tier.ts';

/** One shared-tier call from a worker; `id` pairs it with its reply. */
export type TierRequest = { pulseTier: number } & (
  | { op: 'read'; key: string }
  | { op: 'write'; key: string; packed: Uint8Array; keepMs: number }
  | { op: 'claim'; key: string; token: string; ms: number }
  | { op: 'confirm'; key: string; token: string; ttlMs: number }
  | { op: 'fail'; key: string; baseMs: number; maxMs: number }
  | { op: 'endBackoff'; key: string }
  | { op: 'takeSlot'; host: string; fills: number; windowMs: number; burst: number; newQueryWindow?: number }
  | { op: 'time'; host: string }
  | { op: 'cooldown'; host: string; ms: number }
  | { op: 'calm'; host: string; ms: number }
  | { op: 'join'; group: string; member: string; keepMs: number }
  | { op: 'members'; group: string }
);

export interface TierReply {
  pulseTier: number;
  result: unknown;
}

export function isTierRequest(message: unknown): message is TierRequest {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as TierRequest).pulseTier === 'number' &&
    'op' in message
  );
}

/** Leases, failure counts, windows and cooldowns: a few per key or host, never evicted for size. */
const MAX_MARKS = 200_000;
/** Fold groups remembered; each holds at most MAX_GROUP_MEMBERS members. */
const MAX_GROUPS = 10_000;

export class Coordinator {
  /** Packed entries (stored-response.ts `packStored`), bounded by bytes like a worker's cache. */
  readonly #clock: Clock;
  readonly #entries: LRUCache<string, Uint8Array>;
  readonly #marks: LRUCache<string, string | number>;
  /** The budget's windows, per host, counted here for every worker; fills and window per setting, the burst per call (as on Redis). */
  readonly #slots = new Map<string, WindowSlots>();
  /** Per fold group: each member and when it stops counting. */
  readonly #groups = new LRUCache<string, Map<string, number>>({ max: MAX_GROUPS });

  /** `clock` counts every TTL and window (the primary's real one; a virtual one in the simulation). */
  constructor(maxBytes: number, clock: Clock = realClock) {
    this.#clock = clock;
    this.#entries = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (packed) => Math.max(1, packed.byteLength),
      ...lruTime(clock),
    });
    this.#marks = new LRUCache({ max: MAX_MARKS, ...lruTime(clock) });
  }

  answer(request: TierRequest): TierReply {
    return { pulseTier: request.pulseTier, result: this.#run(request) };
  }

  #run(request: TierRequest): unknown {
    switch (request.op) {
      case 'read':
        return this.#entries.get(request.key);
      case 'write':
        this.#entries.set(request.key, request.packed, { ttl: Math.max(1, Math.ceil(request.keepMs)) });
        this.#marks.delete(`failures:${request.key}`);
        return true;
      case 'claim':
        return this.#claim(`lease:${request.key}`, request.token, request.ms);
      case 'confirm': {
        const lease = `lease:${request.key}`;
        if (this.#marks.get(lease) !== request.token) return false;
        this.#marks.set(lease, request.token, { ttl: Math.max(1, Math.ceil(request.ttlMs)) });
        return true;
      }
      case 'fail': {
        // Doubles per consecutive failure, whichever worker failed.
        const failures = Number(this.#marks.get(`failures:${request.key}`) ?? 0) + 1;
        this.#marks.set(`failures:${request.key}`, failures, { ttl: request.maxMs * 4 });
        const delay = Math.floor(Math.min(request.maxMs, request.baseMs * 2 ** (failures - 1)));
        this.#marks.set(`lease:${request.key}`, 'backoff', { ttl: Math.max(1, delay) });
        return delay;
      }
      case 'endBackoff':
        if (this.#marks.get(`lease:${request.key}`) === 'backoff') this.#marks.delete(`lease:${request.key}`);
        this.#marks.delete(`failures:${request.key}`);
        return true;
      case 'takeSlot':
        return this.#takeSlot(
          request.host,
          request.fills,
          request.windowMs,
          request.burst,
          request.newQueryWindow,
        );
      case 'time':
        return this.#clock.now();
      case 'cooldown':
      case 'calm':
        this.#extend(`${request.op}:${request.host}`, request.ms);
        return true;
      case 'join': {
        let members = this.#groups.get(request.group);
        if (!members) this.#groups.set(request.group, (members = new Map()));
        // Re-inserted, so the map stays ordered by when each member stops counting.
        members.delete(request.member);
        members.set(request.member, this.#clock.now() + request.keepMs);
        if (members.size > MAX_GROUP_MEMBERS) members.delete(members.keys().next().value!);
        return true;
      }
      case 'members': {
        const members = this.#groups.get(request.group);
        if (!members) return [];
        const now = this.#clock.now();
        for (const [member, until] of members) if (until <= now) members.delete(member);
        return [...members.keys()];
      }
    }
  }

  #claim(lease: string, token: string, ms: number): { won: boolean; ms: number; backoff: boolean } {
    const holder = this.#marks.get(lease);
    if (holder === undefined) {
      this.#marks.set(lease, token, { ttl: Math.max(1, Math.ceil(ms)) });
      return { won: true, ms: 0, backoff: false };
    }
    return { won: false, ms: this.#remaining(lease), backoff: holder === 'backoff' };
  }

  /** `WindowSlots` on the primary's clock; a cooldown blocks everything. */
  #takeSlot(
    host: string,
    fills: number,
    windowMs: number,
    burst: number,
    newQueryWindow?: number,
  ): SlotAnswer {
    const cooling = this.#remaining(`cooldown:${host}`);
    if (cooling > 0) return { granted: false, waitMs: cooling, coolingDown: true };
    const setting = `${fills}/${windowMs}`;
    let slots = this.#slots.get(setting);
    if (!slots) this.#slots.set(setting, (slots = new WindowSlots(fills, windowMs)));
    const now = this.#clock.now();
    const calm = this.#remaining(`calm:${host}`) > 0;
    return {
      ...slots.take(host, now, newQueryWindow, calm ? fills : burst),
      aloneHoldMs: slots.aloneHoldMs(host, now),
    };
  }

  /** Sets the mark for `ms` unless it already lasts longer. */
  #extend(key: string, ms: number): void {
    if (this.#remaining(key) < ms) this.#marks.set(key, 1, { ttl: Math.max(1, Math.ceil(ms)) });
  }

  #remaining(key: string): number {
    if (!this.#marks.has(key)) return 0;
    return Math.max(1, Math.ceil(this.#marks.getRemainingTTL(key)));
  }
}
