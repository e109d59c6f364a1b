import { getHub, type PollError, type PollSnapshot } from '../../client/index.ts';

/**
 * Loads `url` once through the page's hub, so a one-shot load gets what polling gets (the page's
 * fetch, response validation, readable errors, `Last-Modified`) without joining the 3 s clock:
 * the subscription ends at the first answer, which removes the URL from the hub. Aborting
 * `signal` unsubscribes, and the hub aborts the request when no one else wants it.
 *
 * Resolves with the snapshot holding the data; rejects with the `PollError`. `onWait` hears of
 * snapshots before the answer (the hub pauses while the page is hidden or offline).
 */
export function loadOnce<T>(url: string, signal: AbortSignal, onWait: (snapshot: PollSnapshot<T>) => void): Promise<PollSnapshot<T>> {
  return new Promise((resolve, reject) => {
    const hub = getHub();
    let unsubscribe = () => {};
    const settle = (snapshot: PollSnapshot<T>): boolean => {
      if (snapshot.data === undefined && snapshot.error === undefined) return false;
      unsubscribe();
      signal.removeEventListener('abort', abort);
      if (snapshot.data !== undefined) resolve(snapshot);
      else reject(snapshot.error as PollError);
      return true;
    };
    const abort = () => {
      unsubscribe();
      reject(signal.reason);
    };
    if (settle(hub.snapshot(url) as PollSnapshot<T>)) return;
    signal.addEventListener('abort', abort, { once: true });
    unsubscribe = hub.subscribe(url, (snapshot) => {
      if (!settle(snapshot as PollSnapshot<T>)) onWait(snapshot as PollSnapshot<T>);
    });
    onWait(hub.snapshot(url) as PollSnapshot<T>);
  });
}
