/**
 * CORS for the origins the operator listed, and for no one else. No credentials are ever
 * allowed: the endpoint holds no cookies and needs none. The headers the widgets read
 * (ETag, Age, Date, Cache-Status, Retry-After) are exposed; Last-Modified is safelisted already.
 */
const EXPOSED = 'ETag, Age, Date, Cache-Status, Retry-After';

export class Cors {
  readonly #allowed: ReadonlySet<string>;

  constructor(allowed: ReadonlySet<string>) {
    this.#allowed = allowed;
  }

  get enabled(): boolean {
    return this.#allowed.size > 0;
  }

  allows(origin: string | null): origin is string {
    return origin !== null && (this.#allowed.has('*') || this.#allowed.has(origin));
  }

  /** Headers of a normal response: the allowance only for a listed origin. */
  headers(request: Request): Headers {
    const headers = new Headers();
    if (!this.enabled) return headers;
    const origin = request.headers.get('origin');
    if (!this.#allowed.has('*')) headers.append('vary', 'Origin');
    if (this.allows(origin)) {
      headers.set('access-control-allow-origin', this.#allowed.has('*') ? '*' : origin);
      headers.set('access-control-expose-headers', EXPOSED);
    }
    return headers;
  }

  /** The answer to a preflight: GET/HEAD with `If-None-Match`, cached by the browser for 10 min. */
  preflight(request: Request): Response {
    const headers = this.headers(request);
    headers.set('allow', 'GET, HEAD, OPTIONS');
    if (headers.has('access-control-allow-origin')) {
      headers.set('access-control-allow-methods', 'GET, HEAD');
      headers.set('access-control-allow-headers', 'If-None-Match');
      headers.set('access-control-max-age', '600');
    }
    return new Response(null, { status: 204, headers });
  }
}
