/**
 * Prometheus metrics of one cache endpoint, on its own registry so two endpoints (or two tests)
 * in one process never share counters.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HostPlan } from './plan/refresh-plan.ts';

export type CacheMetrics = ReturnType<typeof createMetrics>;

export function createMetrics(sizes: { bytes: () => number; entries: () => number }) {
  const registry = new Registry();
  const registers = [registry];
  // With --workers, /metrics sums every worker's series; each worker plans every key polled on
  // any of them, so a plan is the same plan on each: its gauges are shown once (the largest).
  const planned = { labelNames: ['host'], registers, aggregator: 'max' } as const;
  const plan = {
    keys: new Gauge({
      name: 'pulse_schedule_keys',
      help: 'Distinct live queries of the host being polled (each folded query counts).',
      ...planned,
    }),
    groups: new Gauge({
      name: 'pulse_schedule_groups',
      help: 'Upstream queries the refresh plan keeps fresh: fold groups and unfolded queries.',
      ...planned,
    }),
    callsPerMinute: new Gauge({
      name: 'pulse_schedule_calls_per_minute',
      help: 'Upstream calls a minute the refresh plan makes for the host.',
      ...planned,
    }),
    stretch: new Gauge({
      name: 'pulse_schedule_stretch',
      help: 'Refresh interval over the 3 s tick: 1 while every group fits in the budget.',
      ...planned,
    }),
  };
  return {
    registry,
    /** The refresh plan of a host; undefined once nothing of it is polled. */
    reportPlan(host: string, current: HostPlan | undefined) {
      for (const [name, gauge] of Object.entries(plan)) {
        if (current) gauge.set({ host }, current[name as keyof HostPlan]);
        else gauge.remove({ host });
      }
    },
    folded: new Counter({
      name: 'pulse_cache_folded_total',
      help: "Answers derived from a wider query's fill (query folding).",
      labelNames: ['route'],
      registers,
    }),
    hits: new Counter({
      name: 'pulse_cache_hits_total',
      help: 'Requests answered from a fresh cache entry.',
      labelNames: ['route'],
      registers,
    }),
    misses: new Counter({
      name: 'pulse_cache_misses_total',
      help: 'Requests that waited for an upstream fill.',
      labelNames: ['route'],
      registers,
    }),
    staleServes: new Counter({
      name: 'pulse_cache_stale_serves_total',
      help: 'Requests answered with a stale entry, by reason.',
      labelNames: ['route', 'detail'],
      registers,
    }),
    unavailable: new Counter({
      name: 'pulse_cache_unavailable_total',
      help: 'Requests answered 503: nothing servable and no fill in time.',
      labelNames: ['route'],
      registers,
    }),
    upstreamCalls: new Counter({
      name: 'pulse_upstream_calls_total',
      help: 'Upstream calls by HTTP status or failure reason.',
      labelNames: ['route', 'status'],
      registers,
    }),
    invalidBodies: new Counter({
      name: 'pulse_upstream_invalid_bodies_total',
      help: "Upstream bodies refused: an essential field missing or of another type (the route's contract, docs/upstream-assumptions.md).",
      labelNames: ['route'],
      registers,
    }),
    droppedValues: new Counter({
      name: 'pulse_upstream_dropped_total',
      help: 'Values dropped from upstream bodies that were still served: list or map entries that cannot be used (what=entry), optional fields of another type (what=field).',
      labelNames: ['route', 'what'],
      registers,
    }),
    upstreamSeconds: new Histogram({
      name: 'pulse_upstream_duration_seconds',
      help: 'Upstream call duration.',
      labelNames: ['route'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers,
    }),
    budgetWaits: new Counter({
      name: 'pulse_budget_waits_total',
      help: 'Fills that queued for the per-host upstream budget.',
      labelNames: ['host'],
      registers,
    }),
    clientRejections: new Counter({
      name: 'pulse_client_rejections_total',
      help: 'Requests refused by the per-client-IP limits (requests, and upstream calls for new queries) and by the per-site cap of new queries.',
      registers,
    }),
    leases: new Counter({
      name: 'pulse_shared_leases_total',
      help: 'Shared-tier fill leases by outcome: won (this instance fills), held (another one does), backoff, offline (filled alone).',
      labelNames: ['outcome'],
      registers,
    }),
    historySamples: new Counter({
      name: 'pulse_history_samples_total',
      help: "History minutes per host: recorded, gap (no fresh answer; nothing invented), or another instance's (shared tier).",
      labelNames: ['host', 'outcome'],
      registers,
    }),
    // Summed over workers it read 2 with two workers; 1 only while every worker reaches it.
    sharedTierUp: new Gauge({
      name: 'pulse_shared_tier_up',
      help: '1 while the shared tier (Redis) is reachable; absent without one.',
      registers,
      aggregator: 'min',
    }),
    tierClockOffset: new Gauge({
      name: 'pulse_shared_tier_clock_offset_ms',
      help: "How far the shared tier's clock (Redis's) is ahead of this instance's (negative: behind): the instance keeps time on the tier's.",
      registers,
      aggregator: 'average',
    }),
    cacheBytes: new Gauge({
      name: 'pulse_cache_bytes',
      help: 'Bytes held by the cache, all stored encodings.',
      registers,
      collect() {
        this.set(sizes.bytes());
      },
    }),
    cacheEntries: new Gauge({
      name: 'pulse_cache_entries',
      help: 'Entries held by the cache.',
      registers,
      collect() {
        this.set(sizes.entries());
      },
    }),
  };
}
