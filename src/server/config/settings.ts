/**
 * `pulse-widgets serve` settings from the environment and flags. A flag is its environment
 * variable without `PULSE_`, lower case, dashes: `PULSE_ALLOWED_ORIGINS` is `--allowed-origins`;
 * a flag wins over the variable. The API key is the exception: only `PULSE_API_KEY` or a file
 * (`PULSE_API_KEY_FILE`), never an argument, because every user on the machine can read
 * another process's arguments (`ps`).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { checkHostTimeZones } from '../../history/time-zone-setting.ts';
import { parseTrustProxy } from '../http/client-address.ts';
import { ConfigError } from '../../runtime/config-error.ts';
import { checkApiKey, checkHosts, checkOrigins, checkPrefix, checkRedisUrl, upstreamUrl } from './checks.ts';
import { DEFAULTS } from './options.ts';
import { parseQueryShapes } from '../http/query-shapes.ts';

export interface ServeSettings {
  /** Unset: demo mode, the simulator runs in-process. */
  upstream?: URL;
  /** Upstream mode: required. Demo mode: the key the in-process simulator expects (random when unset). */
  apiKey?: string;
  /** Unset in demo mode: the simulator's demo hosts. */
  hosts?: string[];
  allowedOrigins: string[];
  port: number;
  host: string;
  prefix: string;
  staticDir?: string;
  staleWindowMs: number;
  rawDataPersonalFields: boolean;
  clientLimit: number;
  /** Upstream calls a minute (and at once) a client address may start for queries nobody polls. */
  newQueryLimit: number;
  newQueryBurst: number;
  /** Upstream calls all clients together may start for one site's queries nobody polls, in any sliding minute. */
  newQuerySiteLimit: number;
  /** The pinned query shapes (query-shapes.ts); unset: any valid query. */
  queries?: string;
  cacheMaxBytes: number;
  logLevel: string;
  /** The shared tier; unset: this instance alone. */
  redisUrl?: string;
  /** Instances sharing the budget (the share each keeps while Redis is unreachable). */
  instances: number;
  /** History's directory, or `memory`; unset: the default of the mode (docs/cache-endpoint.md). */
  dataDir?: string;
  /** History's time zone per host (`*` for every other host). */
  hostTimeZones: Record<string, string>;
  /** Processes serving on the one port (node:cluster); 1: this process alone. */
  workers: number;
  /** Query folding (on unless PULSE_FOLD=off). */
  fold: boolean;
  /** Proxies believed about the reader's address: a hop count or addresses and ranges (checked); unset: none. */
  trustProxy?: string;
}

export type SettingsResult = { help: true } | { settings: ServeSettings } | { errors: string[] };

export const USAGE = `Usage: pulse-widgets serve [options]

Runs the key-holding cache endpoint. Without PULSE_UPSTREAM it runs in demo mode on a simulator.
Every option can also be set in the environment (flag wins):

  --upstream <url>           PULSE_UPSTREAM         upstream base URL (https); unset = demo mode
  --hosts <a,b>              PULSE_HOSTS            site IDs served (required with --upstream)
  --allowed-origins <o1,o2>  PULSE_ALLOWED_ORIGINS  origins allowed by CORS (* for any); unset = same-origin only
  --port <n>                 PORT                   listening port (8080; 0 picks a free one)
  --host <addr>              HOST                   listening address (127.0.0.1)
  --prefix </path>           PULSE_PREFIX           mount the routes under a path prefix
  --static-dir <dir>         PULSE_STATIC_DIR       serve a built page at / (alias --static)
  --stale-seconds <n>        PULSE_STALE_SECONDS    serve stale data this long when the upstream fails (300)
  --raw-personal-fields      PULSE_RAW_PERSONAL_FIELDS=1  keep user_email/user_id in raw data
  --client-limit <n>         PULSE_CLIENT_LIMIT     requests per minute per client IP (60000; 0 = off)
  --new-query-limit <n>      PULSE_NEW_QUERY_LIMIT  upstream calls per minute a client IP may start for queries nobody polls (6; 0 = off)
  --new-query-burst <n>      PULSE_NEW_QUERY_BURST  ... and at once, as a dashboard opening on a cold cache (30)
  --new-query-site-limit <n> PULSE_NEW_QUERY_SITE_LIMIT  ... and all client IPs together, per site in any minute (60; 0 = off)
  --queries <shapes>         PULSE_QUERIES          answer only these query shapes, e.g. "quickstats toppages?limit&section=Politics|Tech"
                                                    (others: 403; the / page lists the shapes seen); unset = any valid query
  --trust-proxy <n|a,b/24>   PULSE_TRUST_PROXY      proxies whose X-Forwarded-For/Forwarded names the client: a hop count,
                                                    or addresses and CIDR ranges (or loopback, uniquelocal); unset = none
  --cache-mb <n>             PULSE_CACHE_MB         memory for cached responses (64)
  --redis-url <url>          PULSE_REDIS_URL        share cache, fill leases and budget with other instances (redis://host:6379)
  --instances <n>            PULSE_INSTANCES        instances sharing the budget, for when Redis is unreachable (3)
  --data-dir <dir>           PULSE_DATA_DIR         where history is kept across restarts, or "memory"
                                                    (default: $XDG_STATE_HOME/pulse-widgets, ~/.local/state/pulse-widgets;
                                                    demo mode: memory, backfilled from the simulator)
  --host-tz <tz|host=tz,…>   PULSE_HOST_TZ          time zone of each host's "today" for history (UTC)
  --workers <n>              PULSE_WORKERS          processes serving the port, one fill per key and one budget between them (one per core)
  --fold <on|off>            PULSE_FOLD             derive narrower queries from one wider fill (on)
  --log-level <level>        PULSE_LOG_LEVEL        pino level (info)
  --api-key-file <path>      PULSE_API_KEY_FILE     read the API key from a file
                             PULSE_API_KEY          the API key (environment only, never a flag)
`;

const FLAGS = {
  upstream: 'PULSE_UPSTREAM',
  hosts: 'PULSE_HOSTS',
  'allowed-origins': 'PULSE_ALLOWED_ORIGINS',
  port: 'PORT',
  host: 'HOST',
  prefix: 'PULSE_PREFIX',
  'static-dir': 'PULSE_STATIC_DIR',
  'stale-seconds': 'PULSE_STALE_SECONDS',
  'raw-personal-fields': 'PULSE_RAW_PERSONAL_FIELDS',
  'client-limit': 'PULSE_CLIENT_LIMIT',
  'new-query-limit': 'PULSE_NEW_QUERY_LIMIT',
  'new-query-burst': 'PULSE_NEW_QUERY_BURST',
  'new-query-site-limit': 'PULSE_NEW_QUERY_SITE_LIMIT',
  queries: 'PULSE_QUERIES',
  'trust-proxy': 'PULSE_TRUST_PROXY',
  'cache-mb': 'PULSE_CACHE_MB',
  'redis-url': 'PULSE_REDIS_URL',
  instances: 'PULSE_INSTANCES',
  'data-dir': 'PULSE_DATA_DIR',
  'host-tz': 'PULSE_HOST_TZ',
  workers: 'PULSE_WORKERS',
  fold: 'PULSE_FOLD',
  'log-level': 'PULSE_LOG_LEVEL',
  'api-key-file': 'PULSE_API_KEY_FILE',
} as const;
type Flag = keyof typeof FLAGS;

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function readSettings(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): SettingsResult {
  if (argv.some((arg) => /^--api-?key(=|$)/i.test(arg))) {
    return {
      errors: [
        '--api-key is not accepted: arguments are visible to every user (ps); set PULSE_API_KEY or PULSE_API_KEY_FILE',
      ],
    };
  }
  const parse = () =>
    parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        ...(Object.fromEntries(
          Object.keys(FLAGS).map((flag) => [
            flag,
            { type: flag === 'raw-personal-fields' ? 'boolean' : 'string' },
          ]),
        ) as Record<Flag, { type: 'string' | 'boolean' }>),
        static: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    return { errors: [`${(error as Error).message} (see pulse-widgets serve --help)`] };
  }
  if (parsed.values.help) return { help: true };
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'serve') {
    return {
      errors: [
        `expected the command "serve", got ${parsed.positionals.length === 0 ? 'none' : JSON.stringify(parsed.positionals.join(' '))} (see pulse-widgets serve --help)`,
      ],
    };
  }
  const values = parsed.values as Partial<Record<Flag | 'static', string | boolean>>;
  const errors: string[] = [];
  const setting = (flag: Flag): string | undefined => {
    const value = values[flag] ?? (flag === 'static-dir' ? values.static : undefined) ?? env[FLAGS[flag]];
    return typeof value === 'boolean' ? String(value) : value?.trim() === '' ? undefined : value?.trim();
  };
  const check = <T>(flag: Flag | 'PULSE_API_KEY', read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      const name = flag === 'PULSE_API_KEY' ? flag : `${FLAGS[flag]} (--${flag})`;
      errors.push(`${name}: ${error instanceof ConfigError ? error.message : (error as Error).message}`);
      return undefined;
    }
  };
  const wholeNumber = (flag: Flag, fallback: number, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = setting(flag);
    if (raw === undefined) return fallback;
    return (
      check(flag, () => {
        if (!/^\d{1,15}$/.test(raw) || Number(raw) > max)
          throw new ConfigError(
            `must be a whole number${max < Number.MAX_SAFE_INTEGER ? ` from 0 to ${max}` : ''}, not ${JSON.stringify(raw)}`,
          );
        return Number(raw);
      }) ?? fallback
    );
  };

  const redisSetting = setting('redis-url');
  if (
    values['redis-url'] !== undefined &&
    /^rediss?(\+cluster)?:\/\/[^/]*:[^/@]*@/.test(String(values['redis-url']))
  ) {
    errors.push(
      '--redis-url must not carry a password: arguments are visible to every user (ps); set PULSE_REDIS_URL instead',
    );
  }
  const redisUrl =
    redisSetting === undefined ? undefined : check('redis-url', () => checkRedisUrl(redisSetting));
  const upstreamSetting = setting('upstream');
  const upstream =
    upstreamSetting === undefined ? undefined : check('upstream', () => upstreamUrl(upstreamSetting));

  const keyFile = setting('api-key-file');
  let apiKey: string | undefined;
  if (keyFile !== undefined && env.PULSE_API_KEY)
    errors.push('PULSE_API_KEY and PULSE_API_KEY_FILE are both set: keep one');
  else if (keyFile !== undefined)
    apiKey = check('api-key-file', () => checkApiKey(readFileSync(keyFile, 'utf8')));
  else if (env.PULSE_API_KEY) apiKey = check('PULSE_API_KEY', () => checkApiKey(env.PULSE_API_KEY!));
  if (upstreamSetting !== undefined && keyFile === undefined && !env.PULSE_API_KEY) {
    errors.push('PULSE_UPSTREAM is set but no key: set PULSE_API_KEY (or PULSE_API_KEY_FILE)');
  }

  const hostsSetting = setting('hosts');
  const hosts =
    hostsSetting === undefined ? undefined : check('hosts', () => [...checkHosts(list(hostsSetting))]);
  if (upstreamSetting !== undefined && hostsSetting === undefined) {
    errors.push('PULSE_UPSTREAM is set but PULSE_HOSTS is not: list the site IDs this endpoint may serve');
  }
  const originsSetting = setting('allowed-origins');
  const allowedOrigins =
    originsSetting === undefined
      ? []
      : (check('allowed-origins', () => [...checkOrigins(list(originsSetting))]) ?? []);
  const prefix = check('prefix', () => checkPrefix(setting('prefix') ?? '')) ?? '';
  const host = setting('host') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host))
    errors.push(`HOST (--host): ${JSON.stringify(host)} is not an address such as 127.0.0.1 or ::`);
  const logLevel = setting('log-level') ?? 'info';
  if (!LOG_LEVELS.has(logLevel))
    errors.push(`PULSE_LOG_LEVEL (--log-level): must be one of ${[...LOG_LEVELS].join(', ')}`);
  const personal = setting('raw-personal-fields');
  if (personal !== undefined && !/^(1|0|true|false)$/.test(personal))
    errors.push('PULSE_RAW_PERSONAL_FIELDS (--raw-personal-fields): must be 1 or 0');
  const fold = setting('fold')?.toLowerCase() ?? 'on';
  if (!/^(on|off|1|0|true|false)$/.test(fold)) errors.push('PULSE_FOLD (--fold): must be on or off');

  const trustProxy = setting('trust-proxy');
  if (trustProxy !== undefined) check('trust-proxy', () => parseTrustProxy(trustProxy));

  const hostTzSetting = setting('host-tz');
  const hostTimeZones =
    hostTzSetting === undefined
      ? {}
      : (check('host-tz', () => checkHostTimeZones(list(hostTzSetting))) ?? {});

  const queriesSetting = setting('queries');
  if (queriesSetting !== undefined) {
    const parsed = parseQueryShapes(queriesSetting);
    if ('error' in parsed) errors.push(parsed.error);
  }

  const settings: ServeSettings = {
    upstream,
    apiKey,
    hosts,
    allowedOrigins,
    port: wholeNumber('port', 8080, 65_535),
    host,
    prefix,
    staticDir: setting('static-dir'),
    staleWindowMs: wholeNumber('stale-seconds', DEFAULTS.staleWindowMs / 1000) * 1000,
    rawDataPersonalFields: personal === '1' || personal === 'true',
    clientLimit: wholeNumber('client-limit', DEFAULTS.clientLimit),
    newQueryLimit: wholeNumber('new-query-limit', DEFAULTS.newQueryLimit),
    newQueryBurst: Math.max(1, wholeNumber('new-query-burst', DEFAULTS.newQueryBurst)),
    newQuerySiteLimit: wholeNumber('new-query-site-limit', DEFAULTS.newQuerySiteLimit),
    queries: queriesSetting,
    cacheMaxBytes: Math.max(1, wholeNumber('cache-mb', DEFAULTS.cacheMaxBytes / 2 ** 20)) * 2 ** 20,
    logLevel,
    redisUrl,
    instances: Math.max(1, wholeNumber('instances', DEFAULTS.instances, 1000)),
    dataDir: setting('data-dir'),
    hostTimeZones,
    workers: Math.max(1, wholeNumber('workers', availableParallelism(), 256)),
    fold: !/^(off|0|false)$/.test(fold),
    trustProxy,
  };
  return errors.length > 0 ? { errors } : { settings };
}
