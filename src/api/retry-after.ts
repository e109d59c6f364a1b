/**
 * `Retry-After` (RFC 9110 10.2.3) in milliseconds from `now`: delay-seconds or an HTTP date, a
 * date already past is 0; undefined when the header is absent or unreadable, so a caller can
 * tell "no advice" from "now". One reader for both sides: the poll hub reads our endpoint's
 * answers with it, the cache the upstream's and the doctor the service's.
 */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}
