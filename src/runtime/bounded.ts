/**
 * Work the server and history share: a command to a store that may be unreachable, bounded so
 * that the caller acts alone instead of failing.
 */
import type { Logger } from 'pino';

/** One command, or `undefined` at once when Redis is unreachable (`ready` false), slow or closed. */
export async function runBounded<T>(
  ready: boolean,
  logger: Logger,
  failure: string,
  command: () => Promise<T>,
): Promise<T | undefined> {
  if (!ready) return undefined;
  try {
    return await command();
  } catch (error) {
    logger.debug({ err: (error as Error).message }, failure);
    return undefined;
  }
}
