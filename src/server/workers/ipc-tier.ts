/**
 * A worker's shared tier when `--workers` runs without Redis: every call goes to the primary's
 * `Coordinator` over the cluster IPC channel. A call the primary does not answer within
 * `timeoutMs`, or made once the channel is closed, answers "offline", and the worker acts alone
 * on its share of the budget, as with an unreachable Redis.
 */
import { randomUUID } from 'node:crypto';
import { realClock, type Clock } from '../../runtime/clock.ts';
import type { SlotAnswer } from '../budget/host-budget.ts';
import type { LeaseClaim, SharedTier } from '../tier/shared-tier.ts';
import { packStored, unpackStored, type StoredResponse } from '../../runtime/stored-response.ts';
import type { TierReply, TierRequest } from './coordinator.ts';

/** Distributes a call over the union, the way a `TierRequest` is built. */
type Call = TierRequest extends infer R ? (R extends TierRequest ? Omit<R, 'pulseTier'> : never) : never;

export interface IpcChannel {
  send(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  readonly connected: boolean;
}

export class IpcTier implements SharedTier {
  readonly #channel: IpcChannel;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #pending = new Map<number, (result: unknown) => void>();
  #next = 0;
  #closed = false;

  constructor(channel: IpcChannel, timeoutMs: number, clock: Clock = realClock) {
    this.#channel = channel;
    this.#timeoutMs = timeoutMs;
    this.#clock = clock;
    channel.on('message', (message) => {
      const reply = message as TierReply;
      if (typeof reply?.pulseTier !== 'number') return;
      this.#pending.get(reply.pulseTier)?.(reply.result);
    });
  }

  get online(): boolean {
    return !this.#closed && this.#channel.connected;
  }

  async read(key: string): Promise<StoredResponse | undefined> {
    const packed = await this.#call({ op: 'read', key });
    return packed instanceof Uint8Array
      ? unpackStored(Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength))
      : undefined;
  }

  async write(key: string, stored: StoredResponse, keepMs: number): Promise<void> {
    await this.#call({ op: 'write', key, packed: packStored(stored), keepMs });
  }

  async claim(key: string, ms: number): Promise<LeaseClaim> {
    const token = randomUUID();
    const reply = (await this.#call({ op: 'claim', key, token, ms })) as
      | { won: boolean; ms: number; backoff: boolean }
      | undefined;
    if (reply === undefined) return { kind: 'offline' };
    if (reply.won) return { kind: 'won', token };
    return { kind: reply.backoff ? 'backoff' : 'held', ms: Math.max(1, reply.ms) };
  }

  async confirm(key: string, token: string, ttlMs: number): Promise<boolean | 'offline'> {
    const reply = await this.#call({ op: 'confirm', key, token, ttlMs });
    return reply === undefined ? 'offline' : reply === true;
  }

  async fail(key: string, baseMs: number, maxMs: number): Promise<number | undefined> {
    const reply = await this.#call({ op: 'fail', key, baseMs, maxMs });
    return typeof reply === 'number' ? reply : undefined;
  }

  async endBackoff(key: string): Promise<void> {
    await this.#call({ op: 'endBackoff', key });
  }

  async takeSlot(
    host: string,
    fills: number,
    windowMs: number,
    burst: number,
    newQueryWindow?: number,
  ): Promise<SlotAnswer | undefined> {
    return (await this.#call({ op: 'takeSlot', host, fills, windowMs, burst, newQueryWindow })) as
      | SlotAnswer
      | undefined;
  }

  async time(host: string): Promise<number | undefined> {
    const reply = await this.#call({ op: 'time', host });
    return typeof reply === 'number' ? reply : undefined;
  }

  async cooldown(host: string, ms: number): Promise<void> {
    await this.#call({ op: 'cooldown', host, ms });
  }

  async calm(host: string, ms: number): Promise<void> {
    await this.#call({ op: 'calm', host, ms });
  }

  async join(group: string, member: string, keepMs: number): Promise<void> {
    await this.#call({ op: 'join', group, member, keepMs });
  }

  async members(group: string): Promise<string[] | undefined> {
    const reply = await this.#call({ op: 'members', group });
    return Array.isArray(reply) ? reply.map(String) : undefined;
  }

  close(): void {
    this.#closed = true;
    for (const resolve of this.#pending.values()) resolve(undefined);
  }

  /** The primary's answer, or `undefined` at once when it cannot be asked, or after `timeoutMs`. */
  #call(call: Call): Promise<unknown> {
    if (!this.online) return Promise.resolve(undefined);
    const id = (this.#next += 1);
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(() => settle(undefined), this.#timeoutMs);
      const settle = (result: unknown) => {
        this.#clock.clearTimeout(timer);
        this.#pending.delete(id);
        resolve(result);
      };
      this.#pending.set(id, settle);
      try {
        this.#channel.send({ ...call, pulseTier: id });
      } catch {
        settle(undefined);
      }
    });
  }
}
