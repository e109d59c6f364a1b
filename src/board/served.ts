/** What the board page needs from the browser and the endpoint serving it, apart from the elements. */
import type { Served } from './board-config.ts';

/** The board's own address for what the endpoint serves (hosts, route prefix). */
const SERVED_URL = '/board/sites.json';
const MAX_RETRY_S = 30;

/**
 * Asks the endpoint which sites it serves, again and again (1 s, 2 s, 4 s … 30 s apart) until it
 * answers: a board switched on before its cache keeps trying rather than showing an error for good.
 */
export async function loadServed(onRetry: (seconds: number) => void): Promise<Served> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(SERVED_URL, {
        headers: { Accept: 'application/json' },
        cache: 'no-store',
      });
      if (response.ok) {
        const body = (await response.json()) as Partial<Served>;
        const hosts = Array.isArray(body.hosts)
          ? body.hosts.filter((host): host is string => typeof host === 'string')
          : [];
        return { prefix: typeof body.prefix === 'string' ? body.prefix : '', hosts };
      }
    } catch {
      // Offline or the cache is down: wait and try again.
    }
    const seconds = Math.min(2 ** attempt, MAX_RETRY_S);
    onRetry(seconds);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}

interface WakeLockSentinel {
  readonly released: boolean;
}
interface WakeLockNavigator {
  wakeLock?: { request(type: 'screen'): Promise<WakeLockSentinel> };
}

/**
 * Keeps the screen on where the browser allows (Screen Wake Lock). The browser drops the lock
 * when the page is hidden, so it is asked for again each time the page is shown.
 */
export function keepScreenAwake(): void {
  const wakeLock = (navigator as WakeLockNavigator).wakeLock;
  if (!wakeLock) return;
  let held: WakeLockSentinel | undefined;
  const request = () => {
    if (document.visibilityState !== 'visible' || (held && !held.released)) return;
    wakeLock.request('screen').then(
      (sentinel) => (held = sentinel),
      () => {
        // Refused (no user activation, a power-saving mode): the board works without it.
      },
    );
  };
  document.addEventListener('visibilitychange', request);
  request();
}
