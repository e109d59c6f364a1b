import type { PollError } from './snapshot.ts';

const MAX_SERVER_MESSAGE = 200;

export const NETWORK_ERROR: PollError = { kind: 'network', message: 'The data source could not be reached.' };
export const INVALID_BODY: PollError = { kind: 'invalid', message: 'The data source sent data in an unexpected shape.' };

/**
 * Describes a non-2xx answer. Our cache endpoint explains its refusals as
 * `{"error":{"message":…}}`; that sentence is shown (as text, shortened), anything else is not.
 */
export async function httpError(response: Response): Promise<PollError> {
  const status = response.status;
  const { message: explanation, code } = await serverError(response);
  if (status === 429) return { kind: 'http', status, message: 'The data source is busy; retrying shortly.' };
  // The service answered, but nothing could be read from its answer: not an outage.
  if (code === 'upstream_invalid') return { kind: 'http', status, code, message: `The analytics service sent an answer that could not be read (HTTP ${status}).` };
  if (status >= 500) return { kind: 'http', status, message: `The data source is unavailable (HTTP ${status}).` };
  if (status === 404) return { kind: 'http', status, message: explanation ?? 'The data source was not found (HTTP 404).', reason: explanation };
  return { kind: 'http', status, message: explanation ?? `The data source refused the request (HTTP ${status}).`, reason: explanation };
}

/** The cache endpoint's `{"error":{"code","message"}}`, each kept only when it is a non-empty string. */
async function serverError(response: Response): Promise<{ message?: string; code?: string }> {
  try {
    const body: unknown = await response.json();
    const { message, code } = (body as { error?: { message?: unknown; code?: unknown } } | null)?.error ?? {};
    return {
      message: typeof message === 'string' && message.trim() ? message.trim().slice(0, MAX_SERVER_MESSAGE) : undefined,
      code: typeof code === 'string' ? code : undefined,
    };
  } catch {
    return {};
  }
}

/** `Retry-After` in milliseconds from now: delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(value: string | null, now: number): number {
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : 0;
}
