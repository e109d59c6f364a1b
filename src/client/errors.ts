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
  let origin: string | undefined;
  try {
    origin = new URL(url, globalThis.location?.href).origin;
  } catch {
    origin = undefined;
  }
  if (page && page !== 'null' && origin && origin !== page) {
    const global = globalThis as Record<symbol, Set<string> | undefined>;
    const hinted = (global[HINTED] ??= new Set());
    if (!hinted.has(origin)) {
      hinted.add(origin);
      console.warn(`pulse-widgets: ${origin} could not be reached from ${page}. If it is up, the browser blocked the request: `
        + `allow this page on the endpoint (PULSE_ALLOWED_ORIGINS=${page}), and if the page has a Content-Security-Policy, add ${origin} to its connect-src. `
        + 'Or serve the endpoint on this origin (pulse-widgets proxy-config).');
    }
  }
  return NETWORK_ERROR;
}
export const INVALID_BODY: PollError = { kind: 'invalid', message: 'The data source sent data in an unexpected shape.' };

/**
 * Describes a non-2xx answer. Our cache endpoint explains its refusals as
 * `{"error":{"message":…}}`; that sentence is shown (as text, shortened), anything else is not.
 */
export async function httpError(response: Response): Promise<PollError> {
  const status = response.status;
  const explanation = await serverMessage(response);
  if (status === 429) return { kind: 'http', status, message: 'The data source is busy; retrying shortly.' };
  if (status >= 500) return { kind: 'http', status, message: `The data source is unavailable (HTTP ${status}).` };
  if (status === 404) return { kind: 'http', status, message: explanation ?? 'The data source was not found (HTTP 404).', reason: explanation };
  return { kind: 'http', status, message: explanation ?? `The data source refused the request (HTTP ${status}).`, reason: explanation };
}

async function serverMessage(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.json();
    const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
    return typeof message === 'string' && message.trim() ? message.trim().slice(0, MAX_SERVER_MESSAGE) : undefined;
  } catch {
    return undefined;
  }
}

/** `Retry-After` in milliseconds from now: delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(value: string | null, now: number): number {
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : 0;
}
