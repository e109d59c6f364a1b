/**
 * Every error the endpoint answers is ours, in one JSON shape, never text from the upstream:
 * `{"error":{"code":"bad_param","message":"…","param":"limit"}}`.
 */
export type ErrorCode =
  | 'bad_param'
  | 'host_not_allowed'
  | 'not_found'
  | 'method_not_allowed'
  | 'origin_not_allowed'
  | 'uri_too_long'
  | 'too_many_requests'
  | 'too_many_new_queries'
  | 'query_not_allowed'
  | 'upstream_unavailable'
  | 'upstream_invalid'
  | 'upstream_rate_limited'
  | 'history_unavailable';

export function errorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  options: { param?: string; headers?: ConstructorParameters<typeof Headers>[0] } = {},
): Response {
  const headers = new Headers(options.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  headers.set('cache-control', 'no-store');
  headers.set('x-content-type-options', 'nosniff');
  const error = options.param === undefined ? { code, message } : { code, message, param: options.param };
  return new Response(JSON.stringify({ error }), { status, headers });
}

/** `Retry-After` in whole seconds, at least 1. */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}
