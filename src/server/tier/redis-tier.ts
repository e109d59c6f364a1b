/**
 * `RedisTier`: the shared tier (shared-tier.ts) on one Redis or a Redis Cluster. Leases are
 * `SET NX PX`; the budget is counted by a Lua script on Redis's own clock (`TIME`); fold groups'
 * members are a sorted set per group.
 *
 * Redis is a helper, not a dependency: every command is bounded by a short timeout and fails
 * fast while the connection is down (no offline queue), and each caller then acts alone, with
 * the budget cut to its share (`SharedSlots`). node-redis reconnects by itself; sharing resumes
 * with the first command after it does. The API key is never written to Redis.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { runBounded } from '../../runtime/bounded.ts';
import { closeClient, closeCluster } from '../../runtime/redis-close.ts';
import { createClient, createCluster, RESP_TYPES } from 'redis';
import type { SlotAnswer } from '../budget/host-budget.ts';
import { packStored, unpackStored, type StoredResponse } from '../../runtime/stored-response.ts';
import { MAX_GROUP_MEMBERS, type LeaseClaim, type SharedTier } from './shared-tier.ts';

export interface RedisTierOptions {
  url: string;
  /** Namespace of every key, so unrelated deployments can share one Redis. */
  prefix: string;
  /** Longest wait for one command before acting alone. */
  timeoutMs: number;
  logger: Logger;
  /** Told when sharing starts and stops (for the metrics gauge). */
  onOnline?: (online: boolean) => void;
}

/** What the tier needs of a node-redis client or cluster, whichever the URL asks for. */
interface Commands {
  get(key: string): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: (string | Buffer)[] }): Promise<unknown>;
}
interface Connection {
  readonly isReady: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

type RedisConnection =
  | { cluster: false; url: string }
  | { cluster: true; seeds: string[]; tls: boolean; credentials: { username?: string; password?: string } };

/**
 * `redis://` or `rediss://` (TLS) for one server; `redis+cluster://h1:7000,h2:7000` or
 * `rediss+cluster://…` for a Redis Cluster, named by one or more seed nodes (the client finds
 * the others), credentials before the first host applying to every node.
 */
export function redisConnection(value: string): RedisConnection {
  const cluster = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)\/?$/.exec(value);
  if (!cluster) return { cluster: false, url: value };
  const [, scheme, userinfo, hosts] = cluster;
  const [username, password] = userinfo === undefined ? [] : userinfo.split(':').map(decodeURIComponent);
  return {
    cluster: true,
    seeds: hosts!.split(',').map((host) => `${scheme}://${host.trim()}`),
    tls: scheme === 'rediss',
    credentials: { ...(username ? { username } : {}), ...(password === undefined ? {} : { password }) },
  };
}

/** Reconnect quickly after a short outage, then every second at most. */
const RECONNECT_MAX_MS = 1000;

const TAKE_LEASE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1, 0, 0} end
return {0, redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[1]) == 'backoff' and 1 or 0}`;

const CONFIRM_LEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** Doubles per consecutive failure, whichever instance failed: the count lives in Redis. */
const FAIL_LEASE = `
local failures = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2] * 4)
local delay = math.floor(math.min(tonumber(ARGV[2]), tonumber(ARGV[1]) * 2 ^ (failures - 1)))
redis.call('SET', KEYS[1], 'backoff', 'PX', delay)
return delay`;

const END_BACKOFF = `
if redis.call('GET', KEYS[1]) == 'backoff' then redis.call('DEL', KEYS[1]) end
redis.call('DEL', KEYS[2])
return 1`;

const WRITE_ENTRY = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
return 1`;

/**
 * `WindowSlots.take` (host-budget.ts) on Redis's clock: aligned windows of ARGV[1] fills, up to
 * ARGV[3] while the last minute's log (KEYS[3]) holds less than half of fills × 61 and no calm
 * (KEYS[4]) is set; a cooldown blocks everything; a new query's share window (ARGV[4], or '')
 * is checked. Answers {granted, waitMs, coolingDown, grantedAt}.
 */
const TAKE_SLOT = `
-- aloneHoldMs of host-budget.ts, over the minute's calls, newest first.
local function aloneHold(now, fills, windowMs)
  local sent = redis.call('ZREVRANGE', KEYS[3], 0, -1, 'WITHSCORES')
  local hold = 0
  for i = 2, #sent, 2 do
    hold = math.max(hold, (i / 2) / fills - 1 - (now - tonumber(sent[i])) / windowMs)
  end
  return math.ceil(hold * windowMs)
end
local cooling = redis.call('PTTL', KEYS[2])
if cooling > 0 then return {0, cooling, 1} end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local fills = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local window = math.floor(now / windowMs)
-- crossedWindowWaitMs (host-budget.ts): a new query's ask that crossed into the next window waits.
local newQueryWindow = tonumber(ARGV[4])
local into = now % windowMs
if newQueryWindow and window * windowMs ~= newQueryWindow and into < windowMs / 2 then
  return {0, windowMs / 2 - into, 0, now, aloneHold(now, fills, windowMs)}
end
if tonumber(redis.call('HGET', KEYS[1], 'window')) ~= window then
  redis.call('HSET', KEYS[1], 'window', window, 'used', 0)
  redis.call('PEXPIRE', KEYS[1], windowMs * 2)
end
local minuteAgo = now - 60 * windowMs
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. minuteAgo)
local sent = redis.call('ZCARD', KEYS[3])
local perMinute = fills * 61
local limit = (sent < perMinute / 2 and redis.call('EXISTS', KEYS[4]) == 0) and tonumber(ARGV[3]) or fills
local used = tonumber(redis.call('HGET', KEYS[1], 'used'))
if used >= limit or sent >= perMinute then
  local wait = windowMs - now % windowMs
  if sent >= perMinute then
    local oldest = tonumber(redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2])
    wait = math.max(wait, oldest - minuteAgo + 1)
  end
  return {0, wait, 0, now, aloneHold(now, fills, windowMs)}
end
redis.call('HINCRBY', KEYS[1], 'used', 1)
redis.call('ZADD', KEYS[3], now, window .. ':' .. used)
redis.call('PEXPIRE', KEYS[3], 61 * windowMs)
return {1, 0, 0, now, aloneHold(now, fills, windowMs)}`;

/**
 * A member counts until Redis's now + keepMs; the set lives as long as its longest-counting
 * member (a join with a shorter keep never shortens it: that dropped every other member).
 */
const JOIN_GROUP = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('ZCARD', KEYS[1]) > tonumber(ARGV[3]) then redis.call('ZPOPMIN', KEYS[1]) end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

const GROUP_MEMBERS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

/** Redis's clock in ms, on the node holding KEYS[1] (a host's budget). */
const TIME_OF = `
local time = redis.call('TIME')
return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`;

/** Sets a mark (a cooldown, a calm) for ARGV[1] ms unless it already lasts longer. */
const EXTEND_MARK = `
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end
return 1`;

export class RedisTier implements SharedTier {
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #onOnline?: (online: boolean) => void;
  readonly #client: Connection;
  readonly #commands: Commands;
  readonly #binary: Commands;
  /** Closes the client for good (src/runtime/redis-close.ts). */
  readonly #end: () => void;
  #online = false;
  #closed = false;

  constructor(options: RedisTierOptions) {
    this.#prefix = options.prefix;
    this.#logger = options.logger;
    this.#onOnline = options.onOnline;
    const connection = redisConnection(options.url);
    const socket = {
      connectTimeout: Math.max(options.timeoutMs, 1000),
      // Never once closed: a late client of a closed cluster whose master is down gives up.
      reconnectStrategy: (retries: number) =>
        this.#closed ? false : Math.min(50 * 2 ** retries, RECONNECT_MAX_MS),
    };
    const binary = { timeout: options.timeoutMs, typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } };
    if (connection.cluster) {
      // A command for a slot whose master is down fails at once ("offline"): its caller acts alone,
      // every other slot keeps being shared.
      const client = createCluster({
        rootNodes: connection.seeds.map((url) => ({ url })),
        defaults: {
          ...connection.credentials,
          disableOfflineQueue: true,
          socket: { ...socket, tls: connection.tls },
        },
      });
      this.#client = client;
      this.#commands = client.withCommandOptions({ timeout: options.timeoutMs });
      this.#binary = client.withCommandOptions(binary);
      this.#end = () => closeCluster(client);
      client.connect().then(
        () => this.#setOnline(true),
        () => undefined,
      );
    } else {
      const client = createClient({ url: connection.url, disableOfflineQueue: true, socket });
      this.#client = client;
      this.#commands = client.withCommandOptions({ timeout: options.timeoutMs });
      this.#binary = client.withCommandOptions(binary);
      client.on('ready', () => this.#setOnline(true));
      client.on('end', () => this.#setOnline(false));
      this.#end = () => closeClient(client);
      // Resolves once connected, however long Redis takes to appear; until then every call acts alone.
      client.connect().catch(() => undefined);
    }
    this.#client.on('error', () => this.#setOnline(false));
  }

  get online(): boolean {
    return this.#online && this.#client.isReady;
  }

  async read(key: string): Promise<StoredResponse | undefined> {
    const reply = await this.#run(() => this.#binary.get(this.#key('entry', key)));
    return Buffer.isBuffer(reply) ? unpackStored(reply) : undefined;
  }

  async write(key: string, stored: StoredResponse, keepMs: number): Promise<void> {
    await this.#run(() =>
      this.#commands.eval(WRITE_ENTRY, {
        keys: [this.#key('entry', key), this.#key('failures', key)],
        arguments: [packStored(stored), String(Math.ceil(keepMs))],
      }),
    );
  }

  async claim(key: string, ms: number): Promise<LeaseClaim> {
    const token = randomUUID();
    const reply = await this.#run(() =>
      this.#commands.eval(TAKE_LEASE, {
        keys: [this.#key('lease', key)],
        arguments: [token, String(Math.ceil(ms))],
      }),
    );
    if (!Array.isArray(reply)) return { kind: 'offline' };
    const [won, pttl, backoff] = reply.map(Number) as [number, number, number];
    if (won === 1) return { kind: 'won', token };
    return { kind: backoff === 1 ? 'backoff' : 'held', ms: Math.max(1, pttl) };
  }

  /**
   * Called when the budget grants the upstream call: the lease now lasts exactly `ttlMs`.
   * `false` if another instance took it meanwhile (this one waited longer than its lease).
   */
  async confirm(key: string, token: string, ttlMs: number): Promise<boolean | 'offline'> {
    const reply = await this.#run(() =>
      this.#commands.eval(CONFIRM_LEASE, {
        keys: [this.#key('lease', key)],
        arguments: [token, String(Math.ceil(ttlMs))],
      }),
    );
    return reply === undefined ? 'offline' : Number(reply) === 1;
  }

  /** The fill failed: the lease becomes a backoff for every instance. Answers its length. */
  async fail(key: string, baseMs: number, maxMs: number): Promise<number | undefined> {
    const reply = await this.#run(() =>
      this.#commands.eval(FAIL_LEASE, {
        keys: [this.#key('lease', key), this.#key('failures', key)],
        arguments: [String(baseMs), String(maxMs)],
      }),
    );
    return reply === undefined ? undefined : Number(reply);
  }

  /** The key's site answers again: a backoff lease ends (a fill's lease stays) and the count restarts. */
  async endBackoff(key: string): Promise<void> {
    await this.#run(() =>
      this.#commands.eval(END_BACKOFF, {
        keys: [this.#key('lease', key), this.#key('failures', key)],
        arguments: [],
      }),
    );
  }

  async takeSlot(
    host: string,
    fills: number,
    windowMs: number,
    burst: number,
    newQueryWindow?: number,
  ): Promise<SlotAnswer | undefined> {
    const reply = await this.#run(() =>
      this.#commands.eval(TAKE_SLOT, {
        keys: [
          this.#key('budget', host),
          this.#key('cooldown', host),
          this.#key('sent', host),
          this.#key('calm', host),
        ],
        arguments: [String(fills), String(windowMs), String(burst), String(newQueryWindow ?? '')],
      }),
    );
    if (!Array.isArray(reply)) return undefined;
    const [granted, waitMs, coolingDown, grantedAt, aloneHoldMs = 0] = reply.map(Number) as [
      number,
      number,
      number,
      number,
      number?,
    ];
    return granted === 1
      ? { granted: true, at: grantedAt, aloneHoldMs }
      : { granted: false, waitMs: Math.max(1, waitMs), coolingDown: coolingDown === 1, aloneHoldMs };
  }

  async time(host: string): Promise<number | undefined> {
    const reply = await this.#run(() =>
      this.#commands.eval(TIME_OF, { keys: [this.#key('budget', host)], arguments: [] }),
    );
    return typeof reply === 'number' ? reply : undefined;
  }

  async cooldown(host: string, ms: number): Promise<void> {
    await this.#extendMark(this.#key('cooldown', host), ms);
  }

  async calm(host: string, ms: number): Promise<void> {
    await this.#extendMark(this.#key('calm', host), ms);
  }

  async #extendMark(key: string, ms: number): Promise<void> {
    await this.#run(() =>
      this.#commands.eval(EXTEND_MARK, { keys: [key], arguments: [String(Math.ceil(ms))] }),
    );
  }

  async join(group: string, member: string, keepMs: number): Promise<void> {
    await this.#run(() =>
      this.#commands.eval(JOIN_GROUP, {
        keys: [this.#key('fold', group)],
        arguments: [member, String(Math.ceil(keepMs)), String(MAX_GROUP_MEMBERS)],
      }),
    );
  }

  async members(group: string): Promise<string[] | undefined> {
    const reply = await this.#run(() =>
      this.#commands.eval(GROUP_MEMBERS, { keys: [this.#key('fold', group)], arguments: [] }),
    );
    return Array.isArray(reply) ? reply.map(String) : undefined;
  }

  close(): void {
    this.#closed = true;
    this.#setOnline(false);
    this.#end();
  }

  /**
   * `{name}` is the key's hash tag: on a Redis Cluster a key's entry, lease and failure count
   * share one slot, and a host's budget window and cooldown share one, so every script's keys
   * live on one node. (A canonical query never holds a brace: URLSearchParams encodes it.)
   */
  #key(kind: string, name: string): string {
    return `${this.#prefix}${kind}:{${name}}`;
  }

  #run<T>(command: () => Promise<T>): Promise<T | undefined> {
    return runBounded(
      !this.#closed && this.#client.isReady,
      this.#logger,
      'shared tier command failed: acting alone',
      command,
    );
  }

  #setOnline(online: boolean): void {
    if (online === this.#online || (online && this.#closed)) return;
    this.#online = online;
    this.#onOnline?.(online);
    if (this.#closed) return;
    if (online) this.#logger.info('shared tier connected: instances share entries, leases and the budget');
    else
      this.#logger.warn(
        'shared tier unreachable: this instance acts alone on its share of the budget until Redis is back',
      );
  }
}
