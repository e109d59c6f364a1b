/**
 * Headline experiments (spec 2.4 and 4.6). Each UTC day of each site has a few experiments whose
 * timeline and results are a function of (seed, site, day) and of the time asked about, so any
 * date range can be answered without storing history.
 *
 * Status follows the timestamps: draft until activated_at, then active, then completed at
 * completed_at (when a winner is found), and archived at archived_at; some are archived without
 * ever completing.
 */
import type { RawDataParams, RawDataRecord, RawDataResponse } from '../../api/index.ts';
import { hash, pick, unit } from './random.ts';
import type { Page, Site } from './site.ts';
import { AUTHORS } from './vocabulary.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Rows returned when `limit` is absent (the spec does not say; ours). */
export const RAW_DATA_DEFAULT_LIMIT = 1000;

const MODELS = ['thompson_sampling', 'epsilon_greedy', 'ab'] as const;
const SLOTS = ['top-story', 'rail-2', 'most-read', 'hero'] as const;
const HEADLINE_VARIANTS = [
  (title: string) => title,
  (title: string) => `${title}?`,
  (title: string) => `Explained: ${title}`,
  (title: string) => `${title} (and why it matters)`,
];

interface Experiment {
  id: string;
  key: number;
  page: Page;
  createdAt: number;
  activatedAt: number;
  completedAt: number | null;
  archivedAt: number;
  variants: number;
  model: string;
  editor: string;
  /** Impressions per minute while running. */
  rate: number;
}

/** A duration rounded to whole seconds, as the timestamps are. */
const seconds = (ms: number) => Math.round(ms / 1000) * 1000;

function experimentsOfDay(site: Site, articles: readonly Page[], day: number): Experiment[] {
  const count = 2 + (hash(site.key, day, 200) % 3);
  return Array.from({ length: count }, (_, n) => {
    const key = hash(site.key, day, 201, n);
    const createdAt = day * DAY_MS + seconds(unit(key, 1) * 20 * HOUR_MS);
    const activatedAt = createdAt + seconds((2 + 28 * unit(key, 2)) * MINUTE_MS);
    const completedAt = unit(key, 3) < 0.7 ? activatedAt + seconds((2 + 8 * unit(key, 4)) * HOUR_MS) : null;
    const archivedAt =
      (completedAt ?? activatedAt + seconds((20 + 30 * unit(key, 5)) * HOUR_MS)) +
      seconds((1 + 2 * unit(key, 6)) * DAY_MS);
    return {
      id: `${hash(key, 7).toString(16).padStart(8, '0')}${hash(key, 8).toString(16).padStart(8, '0')}`,
      key,
      page: pick(articles, key, 9),
      createdAt,
      activatedAt,
      completedAt,
      archivedAt,
      variants: 2 + (hash(key, 10) % 3),
      model: pick(MODELS, key, 11),
      editor: pick(AUTHORS, key, 12),
      rate: 20 + 200 * unit(key, 13),
    };
  });
}

function statusAt(experiment: Experiment, now: number): string {
  if (now < experiment.activatedAt) return 'draft';
  if (now >= experiment.archivedAt) return 'archived';
  if (experiment.completedAt !== null && now >= experiment.completedAt) return 'completed';
  return 'active';
}

const iso = (time: number | null, now: number) =>
  time !== null && time <= now ? new Date(time).toISOString() : null;
const round = (value: number) => Math.round(value * 1e6) / 1e6;
const interval = (mean: number, spread: number): number[] => [
  round(Math.max(0, mean - spread)),
  round(mean + spread),
];

function records(site: Site, experiment: Experiment, now: number): RawDataRecord[] {
  const { key } = experiment;
  const stoppedAt = Math.min(now, experiment.completedAt ?? experiment.archivedAt, experiment.archivedAt);
  const minutes = Math.max(0, (stoppedAt - experiment.activatedAt) / MINUTE_MS);
  const variants = Array.from({ length: experiment.variants }, (_, v) => {
    const trials = Math.floor((minutes * experiment.rate) / experiment.variants);
    const clicks = Math.round(trials * (0.015 + 0.05 * unit(key, v, 20)));
    const engaged = Math.round(clicks * (0.4 + 0.4 * unit(key, v, 21)));
    const ctr = trials > 0 ? clicks / trials : 0;
    const error = trials > 0 ? Math.sqrt((ctr * (1 - ctr)) / trials) : 0;
    return { trials, clicks, engaged, ctr, error, engagement: 20 + 100 * unit(key, v, 22) };
  });
  const best = Math.max(...variants.map((variant) => variant.ctr));
  // Probability of being the best arm: a softmax of each arm's distance to the leader in standard errors.
  const weights = variants.map((variant) =>
    Math.exp(1.7 * ((variant.ctr - best) / Math.max(variant.error, 1e-6))),
  );
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const completed = experiment.completedAt !== null && now >= experiment.completedAt;
  const leader = variants.findIndex((variant) => variant.ctr === best);
  const totalOutcomes = variants.reduce((sum, variant) => sum + variant.clicks, 0);
  const totalTrials = variants.reduce((sum, variant) => sum + variant.trials, 0);
  const topProbability = Math.max(...weights) / weightSum;
  const bestUpper = Math.max(...variants.map((variant) => variant.ctr + 1.96 * variant.error));
  const page = experiment.page;
  return variants.map(
    (variant, v): RawDataRecord => ({
      experiment_id: experiment.id,
      status: statusAt(experiment, now),
      type: 'headline',
      model: experiment.model,
      host: site.host,
      domain: site.host,
      path: `${site.host}${page.path}`,
      location: unit(key, 30) < 0.2 ? null : 'homepage',
      specific_location: unit(key, 31) < 0.2 ? null : pick(SLOTS, key, 32),
      exp_metadata:
        unit(key, 33) < 0.5
          ? null
          : JSON.stringify({ slot: pick(SLOTS, key, 32), note: 'test from the newsroom' }),
      winning_variant: completed ? `v${leader}` : null,
      convergence_type: completed ? (topProbability >= 0.95 ? 'probability' : 'time') : null,
      value_remaining: best > 0 ? ((bestUpper - best) / best).toFixed(4) : '1.0000',
      valid: totalTrials >= 100 ? 'true' : 'false',
      content_type: 'headline',
      content: HEADLINE_VARIANTS[v % HEADLINE_VARIANTS.length]!(page.title),
      variant_id: `v${v}`,
      variant_metadata: v === 0 ? JSON.stringify({ original: true }) : null,
      user_email: `${experiment.editor
        .toLowerCase()
        .normalize('NFKD')
        .replace(/[^a-z]+/g, '.')
        .replace(/^\.|\.$/g, '')}@${site.host}`,
      sections: [...page.sections],
      created_at: iso(experiment.createdAt, now),
      archived_at: iso(experiment.archivedAt, now),
      activated_at: iso(experiment.activatedAt, now),
      completed_at: iso(experiment.completedAt, now),
      total_outcomes: totalOutcomes,
      total_failures: totalTrials - totalOutcomes,
      outcome_last_received_at: totalTrials > 0 ? Math.floor(stoppedAt / 1000) : null,
      num_outcomes: variant.clicks,
      num_variants: experiment.variants,
      strategy_last_updated_at: minutes > 0 ? Math.floor(stoppedAt / 300_000) * 300 : null,
      user_id: 1000 + (hash(key, 40) % 9000),
      engagement_mean: round(variant.engagement),
      ctr_mean: round(variant.ctr),
      engaged_clicks_mean: variant.trials > 0 ? round(variant.engaged / variant.trials) : 0,
      probability: round(weights[v]! / weightSum),
      payout_coefficients: [1, 0.25],
      priors: [1, 1],
      engagement_intervals: interval(variant.engagement, 30 / Math.sqrt(variant.clicks + 1)),
      ctr_intervals: interval(variant.ctr, 1.96 * variant.error),
      engaged_click_intervals: interval(
        variant.trials > 0 ? variant.engaged / variant.trials : 0,
        1.96 * variant.error,
      ),
      outcome_counts: [variant.clicks, variant.trials - variant.clicks, variant.engaged],
    }),
  );
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Offset of `timeZone` from UTC at `time`, in ms. */
function zoneOffset(timeZone: string, time: number): number {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zoneFormats.set(timeZone, format);
  }
  const part: Record<string, number> = {};
  for (const { type, value } of format.formatToParts(time)) part[type] = Number(value);
  const local = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return local - Math.floor(time / 1000) * 1000;
}

/** The UTC instant of midnight starting `date` (YYYY-MM-DD) in `timeZone`. */
export function startOfDay(date: string, timeZone: string): number {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`);
  const guess = midnightUtc - zoneOffset(timeZone, midnightUtc);
  // Second pass: the offset at the guess is the right one unless a DST change sits in between.
  return midnightUtc - zoneOffset(timeZone, guess);
}

/**
 * Rows of the experiments created between the start of `start` and the end of `end` in `tz`,
 * as known at `now`, oldest first, one row per variant.
 */
export function rawData(site: Site, params: RawDataParams, now: number): RawDataResponse {
  const from = startOfDay(params.start, params.tz);
  const to = Math.min(
    startOfDay(
      new Date(Date.parse(`${params.end}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10),
      params.tz,
    ),
    now + 1,
  );
  const articles = site.pages.filter((page) => page.isArticle);
  const chosen: Experiment[] = [];
  for (let day = Math.floor(from / DAY_MS); day * DAY_MS < to; day++) {
    for (const experiment of experimentsOfDay(site, articles, day)) {
      if (experiment.createdAt < from || experiment.createdAt >= to) continue;
      if (params.status === 'all' || statusAt(experiment, now) === params.status) chosen.push(experiment);
    }
  }
  chosen.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const data = chosen.flatMap((experiment) => records(site, experiment, now));
  return { status: 'success', data: data.slice(0, params.limit ?? RAW_DATA_DEFAULT_LIMIT) };
}
