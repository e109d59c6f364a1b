/**
 * The checks that refuse a setting that would break a promise: an upstream the key would reach
 * in clear, a key that could inject a header, a host that is not a site ID, an origin or Redis
 * URL that is not one, a prefix with dot segments. Each throws a `ConfigError` naming the setting.
 */
import { hostParam } from '../../api/index.ts';
import { ConfigError } from '../../runtime/config-error.ts';
import { parseTrustProxy, type TrustProxy } from '../http/client-address.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The upstream base: http(s), no credentials, query or fragment; plain http only on loopback (the key would travel in clear). */
export function upstreamUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`upstream "${String(value)}" is not a URL (expected e.g. https://api.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError(`upstream must be an http(s) URL, not ${url.protocol}`);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    throw new ConfigError(
      'upstream must use https: the API key would travel in clear text (http is accepted for localhost only)',
    );
  }
  if (url.username || url.password)
    throw new ConfigError('upstream must not contain credentials: the key goes in PULSE_API_KEY');
  if (url.search || url.hash) throw new ConfigError('upstream must be a base URL without query or fragment');
  return url;
}

/** A key that fits in one header value: printable, no CR/LF that could add headers. */
export function checkApiKey(key: string): string {
  const trimmed = key.trim();
  if (trimmed === '') throw new ConfigError('the API key is empty');
  if (!/^[\x21-\x7e]+$/.test(trimmed))
    throw new ConfigError('the API key must be printable ASCII without spaces');
  return trimmed;
}

export function checkHosts(hosts: readonly string[]): Set<string> {
  const checked = new Set<string>();
  for (const host of hosts) {
    const result = hostParam.safeParse(host.trim());
    if (!result.success) throw new ConfigError(`host "${host}" is not a site ID such as example.com`);
    checked.add(result.data);
  }
  if (checked.size === 0)
    throw new ConfigError('no hosts are allowed: list the site IDs to serve (PULSE_HOSTS)');
  return checked;
}

export function checkOrigins(origins: readonly string[]): Set<string> {
  const checked = new Set<string>();
  for (const origin of origins) {
    const trimmed = origin.trim().replace(/\/$/, '');
    if (trimmed === '*') {
      checked.add('*');
      continue;
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(trimmed);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== trimmed || !/^https?:$/.test(parsed.protocol)) {
      throw new ConfigError(`allowed origin "${origin}" is not an origin such as https://news.example.com`);
    }
    checked.add(trimmed);
  }
  return checked;
}

/** A Redis URL for node-redis: redis: or rediss:, host required; or a Redis Cluster, `redis+cluster://host:port[,host:port…]`. */
export function checkRedisUrl(value: string): string {
  const cluster = /^(rediss?)\+cluster:\/\/(?:[^@/]*@)?([^/?#@]+)\/?$/.exec(value);
  if (cluster) {
    for (const node of cluster[2]!.split(',')) {
      if (!/^[A-Za-z0-9.[\]:-]+:\d{1,5}$/.test(node.trim()))
        throw new ConfigError(`the Redis Cluster node "${node}" is not host:port`);
    }
    return value;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      'the Redis URL is not a URL (expected e.g. redis://127.0.0.1:6379, or redis+cluster://10.0.0.1:7000,10.0.0.2:7000)',
    );
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new ConfigError(
      `the Redis URL must start with redis://, rediss:// or redis+cluster://, not ${url.protocol}//`,
    );
  if (url.hostname === '') throw new ConfigError('the Redis URL has no host');
  return value;
}

export function checkPrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed !== '' && !/^(?:\/[A-Za-z0-9._~-]+)+$/.test(trimmed))
    throw new ConfigError(`prefix "${prefix}" must look like /pulse or /api/pulse`);
  if (/(^|\/)\.\.?(\/|$)/.test(trimmed))
    throw new ConfigError(`prefix "${prefix}" must not contain . or .. segments`);
  return trimmed;
}

/** `trustProxy` / PULSE_TRUST_PROXY, compiled (client-address.ts). */
export function checkTrustProxy(value: number | string | readonly string[]): TrustProxy {
  try {
    return parseTrustProxy(value);
  } catch (error) {
    throw new ConfigError(`trustProxy: ${(error as Error).message}`);
  }
}
