import type { CustomMetricValue } from '../../api/index.ts';
import { formatCount, formatDecimal, formatList } from '../../internal/format.ts';
import type { LocalizeController } from '../../internal/localize.ts';
import { memoize } from '../../internal/memo.ts';

/** How many of a string metric's top values a cell lists (the service reports up to 5). */
const TOP_VALUES = 3;

type StringTop = readonly { readonly value: string; readonly visitors: number }[];

/**
 * The keys a `metrics=` query asks for (spec 4.1), in its order: each becomes a column when the
 * data carries it.
 */
export const requestedMetrics = memoize((url: string): readonly string[] => {
  const list = new URL(url).searchParams.get('metrics') ?? '';
  return [
    ...new Set(
      list
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean),
    ),
  ];
}, 100);

/** `{"_rv": "Reader value"}` from the `metric-names` attribute; anything but strings is ignored. */
export function metricNames(value: unknown): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  if (!isRecord(value)) return names;
  for (const [key, name] of Object.entries(value))
    if (typeof name === 'string' && name.trim()) names.set(key, name.trim());
  return names;
}

/** `{"_pw": ["free", "metered"]}` from the `metric-labels` attribute: enum index → label. */
export function metricLabels(value: unknown): ReadonlyMap<string, readonly string[]> {
  const labels = new Map<string, readonly string[]>();
  if (!isRecord(value)) return labels;
  for (const [key, list] of Object.entries(value))
    if (Array.isArray(list))
      labels.set(
        key,
        list.map((label) => String(label)),
      );
  return labels;
}

/**
 * One metric value in words, by its type (docs/upstream-assumptions.md, "Custom metrics"):
 * - enum: counts per index, labelled by the page author (`#2` when no label), in index order;
 * - number: `{count, sum, avg, min, max}` as "avg 2.4, sum 108";
 * - string: `{visitors, unique, top}` as its top values with their visitors;
 * - any other map of counts (`video_state`): its non-zero entries, largest first.
 * Values come from the page being measured, so they are only ever rendered as text.
 */
export function describeMetric(
  value: CustomMetricValue,
  localize: LocalizeController,
  labels: readonly string[] = [],
): string {
  const { locale } = localize;
  if (Array.isArray(value)) {
    const counts = value.flatMap((count, index) =>
      count > 0 ? [`${labels[index] ?? `#${index}`} ${formatCount(locale, count)}`] : [],
    );
    return formatList(locale, counts);
  }
  const { top, avg, sum } = value;
  if (Array.isArray(top)) {
    const values = (top as StringTop)
      .slice(0, TOP_VALUES)
      .map((item) => `${item.value} ${formatCount(locale, item.visitors)}`);
    return formatList(locale, values);
  }
  if ('avg' in value && 'sum' in value) {
    return typeof avg === 'number' && typeof sum === 'number'
      ? formatList(locale, [
          localize.term('pagesMetricAverage', formatDecimal(locale, avg)),
          localize.term('pagesMetricSum', formatDecimal(locale, sum)),
        ])
      : '';
  }
  const counts = Object.entries(value)
    .filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0)
    .sort((a, b) => b[1] - a[1]);
  return formatList(
    locale,
    counts.map(([name, count]) => `${name} ${formatCount(locale, count)}`),
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
