/**
 * Which address is the reader: the trusted-proxy rule of Express's `trust proxy`
 * (proxy-addr), over `X-Forwarded-For` or RFC 7239 `Forwarded`. Pure functions, no Node APIs,
 * so the handler keeps running in Bun and Deno.
 *
 * The hops are walked from the nearest: the peer that connected, then the header's entries from
 * the right (each proxy appends the address it saw). The first hop that is not trusted is the
 * client; entries left of it are whatever that client chose to send and are never read. With a
 * hop count `n`, the peer and the n − 1 entries after it are trusted; with a list, a hop is
 * trusted when its address is in one of the listed addresses or ranges.
 */

/** An address as a number: IPv4 in 32 bits, IPv6 in 128 (an IPv4-mapped IPv6 address is its IPv4). */
interface Address {
  readonly family: 4 | 6;
  readonly value: bigint;
}

interface Range {
  readonly family: 4 | 6;
  readonly network: bigint;
  readonly bits: number;
}

/** Whom to believe about the client's address: a hop count, or the proxies' addresses and ranges. */
export type TrustProxy = { readonly hops: number } | { readonly ranges: readonly Range[] };

/** Trusts no proxy: the client is the peer, and the headers are ignored. */
export const TRUST_NO_PROXY: TrustProxy = { hops: 0 };

/** The names Express accepts for the ranges a local proxy connects from. */
const NAMED_RANGES: Record<string, readonly string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Longest header value read: a chain of 100 proxies is far past any real one. */
const MAX_HEADER_LENGTH = 4096;

export class TrustProxyError extends Error {
  override name = 'TrustProxyError';
}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    // Decimal only: "010" is octal to some parsers and decimal to others.
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIpv6(text: string): bigint | undefined {
  let rest = text;
  let tail: bigint | undefined;
  const lastColon = rest.lastIndexOf(':');
  if (rest.includes('.', lastColon)) {
    tail = parseIpv4(rest.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    rest = `${rest.slice(0, lastColon + 1)}0:0`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const back = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - back.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  let value = 0n;
  for (const group of [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...back]) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return tail === undefined ? value : (value & ~0xffffffffn) | tail;
}

/** An address written as an address alone: IPv4 dotted, IPv6 (zone and brackets allowed). */
function parseAddress(text: string): Address | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%[\w.-]+$/, '');
  if (!bare.includes(':')) return undefined;
  const v6 = parseIpv6(bare);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

/**
 * One hop as a proxy writes it: an address, with brackets and a port or not
 * (`192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]:8080`, `2001:db8::1`).
 */
function parseHop(text: string): Address | undefined {
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(trimmed);
  if (bracketed) return parseAddress(`[${bracketed[1]!}]`);
  const v4WithPort = /^([\d.]+):\d{1,5}$/.exec(trimmed);
  return parseAddress(v4WithPort ? v4WithPort[1]! : trimmed);
}

/** The canonical text of an address (RFC 5952 for IPv6), so one reader is one key however a proxy writes it. */
export function formatAddress(address: Address): string {
  if (address.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, index) =>
    Number((address.value >> BigInt(112 - index * 16)) & 0xffffn),
  );
  // The longest run of two or more zero groups becomes "::" (the first, on a tie).
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; ) {
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end === start ? start + 1 : end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function parseRange(text: string): Range[] {
  const named = NAMED_RANGES[text.toLowerCase()];
  if (named) return named.flatMap(parseRange);
  const [addressText, bitsText, ...extra] = text.split('/');
  const address = extra.length === 0 ? parseAddress(addressText!) : undefined;
  if (!address)
    throw new TrustProxyError(
      `"${text}" is not an address, a CIDR range or one of ${Object.keys(NAMED_RANGES).join(', ')}`,
    );
  const width = address.family === 4 ? 32 : 128;
  // A mapped ::ffff:a.b.c.d/n range counts its bits in IPv6.
  const offset = address.family === 4 && addressText!.includes(':') ? 96 : 0;
  if (
    bitsText !== undefined &&
    (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) - offset > width || Number(bitsText) < offset)
  ) {
    throw new TrustProxyError(`"${text}" has a prefix length that does not fit the address`);
  }
  const bits = bitsText === undefined ? width : Number(bitsText) - offset;
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - bits)) - 1n);
  return [{ family: address.family, network: address.value & mask, bits }];
}

function inRange(address: Address, range: Range): boolean {
  if (address.family !== range.family) return false;
  const width = address.family === 4 ? 32 : 128;
  return address.value >> BigInt(width - range.bits) === range.network >> BigInt(width - range.bits);
}

/**
 * `PULSE_TRUST_PROXY`: a whole number of hops (0 trusts no proxy), or a comma-separated list of
 * addresses, CIDR ranges (IPv4 and IPv6) and the names loopback, linklocal, uniquelocal.
 */
export function parseTrustProxy(value: string | number | readonly string[]): TrustProxy {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > 100)
      throw new TrustProxyError(`a hop count must be a whole number from 0 to 100, not ${value}`);
    return { hops: value };
  }
  const items = (typeof value === 'string' ? value.split(',') : value)
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) return TRUST_NO_PROXY;
  if (items.length === 1 && /^\d+$/.test(items[0]!)) return parseTrustProxy(Number(items[0]));
  return { ranges: items.flatMap(parseRange) };
}

/** Whether any proxy is trusted, so a caller can skip reading headers when none is. */
export function trustsAnyProxy(trust: TrustProxy): boolean {
  return 'hops' in trust ? trust.hops > 0 : trust.ranges.length > 0;
}

/** The `for=` of each element of a `Forwarded` header, in order (RFC 7239 section 4; quoted strings may hold commas). */
function forwardedFor(header: string): string[] {
  const nodes: string[] = [];
  for (const element of header.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
    const pair = /(?:^|;)\s*for\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/i.exec(element);
    // An element without for= still stands for one hop: an unknown one.
    nodes.push(
      pair
        ? pair[1]!
            .trim()
            .replace(/^"(.*)"$/, '$1')
            .replace(/\\(.)/g, '$1')
        : 'unknown',
    );
  }
  return nodes;
}

export interface ForwardingHeaders {
  /** `X-Forwarded-For`, repeated lines joined by ", " (as `Headers.get` gives them). */
  readonly xForwardedFor?: string | null;
  /** RFC 7239 `Forwarded`, read when there is no `X-Forwarded-For`. */
  readonly forwarded?: string | null;
}

/**
 * The reader's address, in canonical text (the peer as given when no proxy is trusted, or when it
 * is not an address); the peer itself when it is not a trusted proxy. An entry that is not an address (`unknown`,
 * an obfuscated `_name`, garbage) ends the walk: the client is the trusted hop that wrote it.
 *
 * `X-Forwarded-For` is read when present, `Forwarded` otherwise: every common proxy appends the
 * former, and a client's own copy of the header its proxy does not write would otherwise decide.
 */
export function clientAddress(
  peer: string | undefined,
  headers: ForwardingHeaders,
  trust: TrustProxy,
): string | undefined {
  if (peer === undefined || peer === '') return undefined;
  // Trusting no proxy, the peer is counted exactly as before any proxy was configured.
  if (!trustsAnyProxy(trust)) return peer;
  let client = parseHop(peer);
  if (!client) return peer;
  const chain = headers.xForwardedFor
    ? headers.xForwardedFor.slice(0, MAX_HEADER_LENGTH).split(',')
    : headers.forwarded
      ? forwardedFor(headers.forwarded.slice(0, MAX_HEADER_LENGTH))
      : [];
  for (let hop = 0; hop < chain.length; hop += 1) {
    const trusted =
      'hops' in trust ? hop < trust.hops : trust.ranges.some((range) => inRange(client!, range));
    if (!trusted) break;
    const next = parseHop(chain[chain.length - 1 - hop]!);
    if (!next) break;
    client = next;
  }
  return formatAddress(client);
}
