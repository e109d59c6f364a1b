/**
 * CORS for the origins the operator listed, and for no one else. No credentials are ever
 * allowed: the endpoint holds no cookies and needs none. The headers the widgets read
 * (ETag, Age, Date, Cache-Status, Retry-After) are exposed; Last-Modified is safelisted already.
 */
export const EXPOSED_HEADERS = 'ETag, Age, Date, Cache-Status, Retry-After';

export class Cors {
  readonly #allowed: ReadonlySet<string>;

  constructor(allowed: ReadonlySet<string>) {
    this.#allowed = allowed;
  }

  get enabled(): boolean {
    return this.#allowed.size > 0;
  }

  /** Whether answers differ by `Origin` (and must say `Vary: Origin`): a list of origins, not `*`. */
  get variesByOrigin(): boolean {
    return this.enabled && !this.#allowed.has('*');
  }

  allows(origin: string | null): origin is string {
    return origin !== null && (this.#allowed.has('*') || this.#allowed.has(origin));
  }

  /** The `Access-Control-Allow-Origin` value for a request from `origin`, if it is allowed. */
  allowOrigin(origin: string | null): string | undefined {
    if (!this.allows(origin)) return undefined;
    return this.#allowed.has('*') ? '*' : origin;
  }

  /** Headers of a normal response to a request from `origin`: the allowance only for a listed origin. */
  headers(origin: string | null): Headers {
    const headers = new Headers();
    if (!this.enabled) return headers;
    if (this.variesByOrigin) headers.append('vary', 'Origin');
    const allowed = this.allowOrigin(origin);
    if (allowed !== undefined) {
      headers.set('access-control-allow-origin', allowed);
      headers.set('access-control-expose-headers', EXPOSED_HEADERS);
    }
    return headers;
  }

  /** The answer to a preflight: GET/HEAD with `If-None-Match`, cached by the browser for 10 min. */
  preflight(request: Request): Response {
    const headers = this.headers(request.headers.get('origin'));
    headers.set('allow', 'GET, HEAD, OPTIONS');
    if (headers.has('access-control-allow-origin')) {
      headers.set('access-control-allow-methods', 'GET, HEAD');
      headers.set('access-control-allow-headers', 'If-None-Match');
      headers.set('access-control-max-age', '600');
    }
    return new Response(null, { status: 204, headers });
  }
}
