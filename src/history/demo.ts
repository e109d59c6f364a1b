/**
 * History in demo mode: every minute before the start comes from the simulator's model (so the
 * demo shows weeks at once), the hosts' time zones are those of their simulated audiences, and
 * the recorder adds live minutes from then on. Kept in memory unless a directory is given.
 */
import { HISTORY_METRICS } from '../api/index.ts';
import { createSimulator } from '../simulator/index.ts';
import type { HistoryOptions } from './service.ts';

export function demoHistory(hosts: readonly string[], overrides: HistoryOptions = {}): HistoryOptions {
  const model = createSimulator({ hosts: hosts.filter((host) => !host.startsWith('video@')) });
  const zones = Object.fromEntries(
    hosts.flatMap((host) => {
      const zone = model.timeZone(host);
      return zone ? [[host, zone]] : [];
    }),
  );
  return {
    ...overrides,
    dataDir: overrides.dataDir ?? 'memory',
    baseline: (host, metric, from, minutes) => model.history(host, HISTORY_METRICS[metric]!, from, minutes),
    timeZones: { ...zones, ...overrides.timeZones },
  };
}
