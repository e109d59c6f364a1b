import type { PollError } from './snapshot.ts';

const MAX_SERVER_MESSAGE = 200;

const NETWORK_ERROR: PollError = { kind: 'network', message: 'The data source could not be reached.' };

/** Endpoint origins the console was already told about, page-wide (two copies of the bundle share it). */
const HINTED = Symbol.for('pulse-widgets.cross-origin-hints');

/**
 * The error of a fetch that got no answer. A browser that blocks a cross-origin request (the
 * endpoint's CORS list, the page's CSP) says only that it failed, so for an address on another
 * origin the console names both settings, once per endpoint origin per page.
 */
export function networkError(url: string): PollError {
  const page = globalThis.location?.origin;
  let origin = page;
  try {
    origin = new URL(url).origin;
  } catch {}
  const hinted = ((globalThis as Record<symbol, Set<string | undefined>>)[HINTED] ??= new Set());
  if (page && origin !== page && !hinted.has(origin)) {
    hinted.add(origin);
    console.warn(
      `pulse-widgets: ${origin} is unreachable from ${page}; if it is up, allow ${page} in its PULSE_ALLOWED_ORIGINS and ${origin} in this page's CSP connect-src.`,
    );
  }
  return NETWORK_ERROR;
}

export const INVALID_BODY: PollError = {
  kind: 'invalid',
  message: 'The data source sent data in an unexpected shape.',
};

/**
 * Describes a non-2xx answer. Our cache endpoint explains its refusals as
 * `{"error":{"message":…}}`; that sentence is shown (as text, shortened), anything else is not.
 */
export async function httpError(response: Response): Promise<PollError> {
  const status = response.status;
  const { message: explanation, code } = await serverError(response);
  if (status === 429) return { kind: 'http', status, message: 'The data source is busy; retrying shortly.' };
  // The service answered, but nothing could be read from its answer: not an outage.
  if (code === 'upstream_invalid')
    return {
      kind: 'http',
      status,
      code,
      message: `The analytics service sent an answer that could not be read (HTTP ${status}).`,
    };
  if (status >= 500)
    return { kind: 'http', status, message: `The data source is unavailable (HTTP ${status}).` };
  if (status === 404)
    return {
      kind: 'http',
      status,
      message: explanation ?? 'The data source was not found (HTTP 404).',
      reason: explanation,
    };
  return {
    kind: 'http',
    status,
    message: explanation ?? `The data source refused the request (HTTP ${status}).`,
    reason: explanation,
  };
}

/** The cache endpoint's `{"error":{"code","message"}}`, each kept only when it is a non-empty string. */
async function serverError(response: Response): Promise<{ message?: string; code?: string }> {
  try {
    const body: unknown = await response.json();
    const { message, code } = (body as { error?: { message?: unknown; code?: unknown } } | null)?.error ?? {};
    return {
      message:
        typeof message === 'string' && message.trim()
          ? message.trim().slice(0, MAX_SERVER_MESSAGE)
          : undefined,
      code: typeof code === 'string' ? code : undefined,
    };
  } catch {
    return {};
  }
}
