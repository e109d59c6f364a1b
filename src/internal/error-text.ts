import type { PollError } from '../client/index.ts';
import type { LocalizeController } from './localize.ts';

/**
 * A failed request in the element's language, so a sentence that quotes it stays in one
 * language; the cache endpoint's own explanation of a refusal is kept as sent.
 */
export function errorText(localize: LocalizeController, error: PollError): string {
  const { kind, status = 0, reason, code } = error;
  if (kind === 'network') return localize.term('errorUnreachable');
  if (kind === 'invalid') return localize.term('errorInvalidData');
  if (kind === 'source') return localize.term('errorUnknownSource');
  if (status === 429) return localize.term('errorBusy');
  if (code === 'upstream_invalid') return localize.term('errorUpstreamInvalid', status);
  if (status >= 500) return localize.term('errorUnavailable', status);
  if (reason) return localize.term('errorExplained', reason);
  return status === 404 ? localize.term('errorNotFound') : localize.term('errorRefused', status);
}
