/**
 * A cached upstream answer as it is kept: the JSON body once as identity, gzip and brotli
 * (compressed once per fill, then served as stored), its ETag and its timing. And the HTTP
 * response built from it: validators, Age, Cache-Control, Cache-Status (RFC 9211), 304.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface StoredResponse {
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
  /** Weak, because the same ETag names all three encodings of one body. */
  etag: string;
  /** When the upstream call started (after any budget wait) and when its answer arrived. */
  startedAt: number;
  fetchedAt: number;
  freshUntil: number;
  /** Bytes held, all encodings. */
  size: number;
}

/**
 * zlib answers a view into its 8–16 KiB output chunk: kept as it is, a 4 KiB gzip body would
 * hold its whole chunk for the life of the entry (measured: 18 KB per entry). Its own memory:
 * copied, unless the view already spans all of its memory (nothing more to hold).
 */
function exactCopy(view: Buffer): Buffer {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength) return view;
  const copy = Buffer.allocUnsafeSlow(view.length);
  view.copy(copy);
  return copy;
}

/** Compresses one body for storage; the deterministic simulation swaps in a synchronous one. */
export type BodyEncoder = (identity: Buffer) => Promise<{ gzip: Buffer; br: Buffer }>;

/** gzip 6 and brotli 5, on libuv's thread pool: once per fill, then served as stored. */
export const zlibEncoder: BodyEncoder = async (identity) => {
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(identity, { level: 6 }),
    brotliAsync(identity, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
  ]);
  return { gzip: gzipped, br: brotli };
};

export async function storeBody(
  json: string,
  timing: Pick<StoredResponse, 'startedAt' | 'fetchedAt' | 'freshUntil'>,
  encode: BodyEncoder = zlibEncoder,
): Promise<StoredResponse> {
  const identity = Buffer.from(json);
  const { gzip: gzipped, br: brotli } = await encode(identity);
  const etag = `W/"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`;
  return {
    identity,
    gzip: exactCopy(gzipped),
    br: exactCopy(brotli),
    etag,
    ...timing,
    size: identity.length + gzipped.length + brotli.length,
  };
}

/**
 * One stored answer as one binary value for the shared tier: a 4-byte length, a JSON header
 * (validator, timing, encoding lengths), then the three bodies back to back. One value, so a
 * reader never sees the bodies of one fill with the timing of another.
 */
export function packStored(stored: StoredResponse): Buffer {
  const { etag, startedAt, fetchedAt, freshUntil } = stored;
  const header = Buffer.from(
    JSON.stringify({
      etag,
      startedAt,
      fetchedAt,
      freshUntil,
      lengths: [stored.identity.length, stored.gzip.length, stored.br.length],
    }),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return Buffer.concat([length, header, stored.identity, stored.gzip, stored.br]);
}

/**
 * The inverse of `packStored`; `undefined` for anything that is not one of its values. The bytes
 * are kept in their own memory (`exactCopy`): a reply buffer may be a slice of a larger socket chunk.
 */
export function unpackStored(reply: Buffer): StoredResponse | undefined {
  const packed = exactCopy(reply);
  try {
    const headerEnd = 4 + packed.readUInt32BE(0);
    const header = JSON.parse(packed.subarray(4, headerEnd).toString()) as Pick<
      StoredResponse,
      'etag' | 'startedAt' | 'fetchedAt' | 'freshUntil'
    > & { lengths: [number, number, number] };
    const [identityLength, gzipLength, brLength] = header.lengths;
    if (headerEnd + identityLength + gzipLength + brLength !== packed.length) return undefined;
    const gzipStart = headerEnd + identityLength;
    const brStart = gzipStart + gzipLength;
    return {
      identity: packed.subarray(headerEnd, gzipStart),
      gzip: packed.subarray(gzipStart, brStart),
      br: packed.subarray(brStart),
      etag: header.etag,
      startedAt: header.startedAt,
      fetchedAt: header.fetchedAt,
      freshUntil: header.freshUntil,
      size: packed.length - headerEnd,
    };
  } catch {
    return undefined;
  }
}

/**
 * RFC 9211 vocabulary: a hit, a miss we waited for, or a stale answer and why it is stale;
 * `folded` names the wider query's cache key when the body was derived from its answer.
 */
export type CacheStatus = ({ kind: 'hit' } | { kind: 'miss' } | { kind: 'stale'; detail: StaleDetail }) & {
  folded?: string;
};

export type StaleDetail = 'refreshing' | 'budget' | 'rate-limited' | 'upstream-error' | 'upstream-invalid';

export const CACHE_NAME = 'pulse-widgets';

/** A derived answer says so (`detail=folded`, unless a stale reason takes the detail) and gives the wide `key` (RFC 9211 2.7). */
export function cacheStatusHeader(status: CacheStatus, ttlSeconds?: number): string {
  const ttl = ttlSeconds === undefined ? '' : `; ttl=${ttlSeconds}`;
  const folded =
    status.folded === undefined
      ? ''
      : `${status.kind === 'stale' ? '' : '; detail=folded'}; key="${status.folded}"`;
  if (status.kind === 'hit') return `${CACHE_NAME}; hit${folded}${ttl}`;
  if (status.kind === 'miss') return `${CACHE_NAME}; fwd=miss; fwd-status=200; stored${folded}${ttl}`;
  return `${CACHE_NAME}; fwd=stale; detail=${status.detail}${folded}${ttl}`;
}

export type Encoding = 'br' | 'gzip' | 'identity';

/** The best stored encoding the client accepts: br, then gzip, then identity. */
export function chooseEncoding(acceptEncoding: string | null): Encoding {
  if (!acceptEncoding) return 'identity';
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    weights.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return 'identity';
}

export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

export function bodyOf(stored: StoredResponse, encoding: Encoding): Buffer {
  return encoding === 'br' ? stored.br : encoding === 'gzip' ? stored.gzip : stored.identity;
}

/** The headers that change with the clock, in whole seconds. */
export interface Freshness {
  age: string;
  cacheControl: string;
  cacheStatus: string;
}

/** Whole seconds since the fill and left of its freshness: what the freshness headers are made of. */
export function freshnessSeconds(stored: StoredResponse, now: number): { age: number; remaining: number } {
  return {
    age: Math.max(0, Math.floor((now - stored.fetchedAt) / 1000)),
    remaining: Math.floor((stored.freshUntil - now) / 1000),
  };
}

/**
 * `max-age` minus `Age` is the remaining freshness, which is how RFC 9111 (4.2.3) has every
 * downstream cache compute it: a stale answer says `max-age=0`. The status decides: an entry
 * judged stale may be stretched fresh by the refresh plan before its answer is written, and
 * the answer must not then say stale in Cache-Status and fresh in Cache-Control.
 */
export function freshness(stored: StoredResponse, status: CacheStatus, now: number): Freshness {
  const { age, remaining } = freshnessSeconds(stored, now);
  const fresh = status.kind !== 'stale' && stored.freshUntil > now;
  return {
    age: String(age),
    cacheControl: `public, max-age=${fresh ? age + Math.max(0, remaining) : 0}`,
    cacheStatus: cacheStatusHeader(status, status.kind === 'stale' ? Math.min(0, remaining) : remaining),
  };
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The response for a stored answer: validators, freshness, the best encoding the client takes, or a 304. */
export function respondStored(
  request: Request,
  stored: StoredResponse,
  status: CacheStatus,
  now: number,
  headers: Headers,
): Response {
  const fresh = freshness(stored, status, now);
  headers.set('content-type', JSON_CONTENT_TYPE);
  headers.set('etag', stored.etag);
  headers.set('last-modified', new Date(stored.fetchedAt).toUTCString());
  headers.set('age', fresh.age);
  headers.set('cache-control', fresh.cacheControl);
  headers.set('cache-status', fresh.cacheStatus);
  headers.append('vary', 'Accept-Encoding');
  headers.set('x-content-type-options', 'nosniff');
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null && etagMatches(ifNoneMatch, stored.etag)) {
    // Last-Modified moves with every fill, the ETag only with the data: Firefox drops a cached
    // entry whose 304 brings another Last-Modified. Age tells the client how fresh it is.
    headers.delete('last-modified');
    return new Response(null, { status: 304, headers });
  }
  const encoding = chooseEncoding(request.headers.get('accept-encoding'));
  const body = bodyOf(stored, encoding);
  if (encoding !== 'identity') headers.set('content-encoding', encoding);
  headers.set('content-length', String(body.length));
  // Buffers from Buffer.from and zlib are backed by a plain ArrayBuffer, as BodyInit wants.
  return new Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
    status: 200,
    headers,
  });
}
