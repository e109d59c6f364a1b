/**
 * Prometheus metrics of one cache endpoint, on its own registry so two endpoints (or two tests)
 * in one process never share counters.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type CacheMetrics = ReturnType<typeof createMetrics>;

export function createMetrics(sizes: { bytes: () => number; entries: () => number }) {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    hits: new Counter({ name: 'pulse_cache_hits_total', help: 'Requests answered from a fresh cache entry.', labelNames: ['route'], registers }),
    misses: new Counter({ name: 'pulse_cache_misses_total', help: 'Requests that waited for an upstream fill.', labelNames: ['route'], registers }),
    staleServes: new Counter({ name: 'pulse_cache_stale_serves_total', help: 'Requests answered with a stale entry, by reason.', labelNames: ['route', 'detail'], registers }),
    unavailable: new Counter({ name: 'pulse_cache_unavailable_total', help: 'Requests answered 503: nothing servable and no fill in time.', labelNames: ['route'], registers }),
    upstreamCalls: new Counter({ name: 'pulse_upstream_calls_total', help: 'Upstream calls by HTTP status or failure reason.', labelNames: ['route', 'status'], registers }),
    upstreamSeconds: new Histogram({ name: 'pulse_upstream_duration_seconds', help: 'Upstream call duration.', labelNames: ['route'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10], registers }),
    budgetWaits: new Counter({ name: 'pulse_budget_waits_total', help: 'Fills that queued for the per-host upstream budget.', labelNames: ['host'], registers }),
    clientRejections: new Counter({ name: 'pulse_client_rejections_total', help: 'Requests refused by the per-client-IP limit.', registers }),
    leases: new Counter({ name: 'pulse_shared_leases_total', help: 'Shared-tier fill leases by outcome: won (this instance fills), held (another one does), backoff, offline (filled alone).', labelNames: ['outcome'], registers }),
    historySamples: new Counter({ name: 'pulse_history_samples_total', help: 'History minutes per host: recorded, gap (no fresh answer; nothing invented), or another instance\'s (shared tier).', labelNames: ['host', 'outcome'], registers }),
    sharedTierUp: new Gauge({ name: 'pulse_shared_tier_up', help: '1 while the shared tier (Redis) is reachable; absent without one.', registers }),
    cacheBytes: new Gauge({
      name: 'pulse_cache_bytes', help: 'Bytes held by the cache, all stored encodings.', registers,
      collect() {
        this.set(sizes.bytes());
      },
    }),
    cacheEntries: new Gauge({
      name: 'pulse_cache_entries', help: 'Entries held by the cache.', registers,
      collect() {
        this.set(sizes.entries());
      },
    }),
  };
}
