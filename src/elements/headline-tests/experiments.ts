import type { RawDataRecord } from '../../api/index.ts';

/** One headline test: the experiment's fields (from its first row) and its variants' rows. */
export interface Experiment {
  readonly id: string;
  readonly record: RawDataRecord;
  readonly variants: readonly RawDataRecord[];
}

/** Rows grouped by experiment, in the order the service sent them (spec 2.4: one row per variant). */
export function groupExperiments(records: readonly RawDataRecord[]): Experiment[] {
  const byId = new Map<string, RawDataRecord[]>();
  for (const record of records) {
    const variants = byId.get(record.experiment_id);
    if (variants) variants.push(record);
    else byId.set(record.experiment_id, [record]);
  }
  return [...byId].map(([id, variants]) => ({ id, record: variants[0]!, variants }));
}

/** An interval `[low, high]` from the service's two-number arrays; none when malformed. */
export function interval(values: readonly number[] | undefined): readonly [number, number] | undefined {
  const [low, high] = values ?? [];
  return low !== undefined && high !== undefined && Number.isFinite(low) && Number.isFinite(high)
    ? [Math.min(low, high), Math.max(low, high)]
    : undefined;
}

type Cell = string | number | null | undefined;

/**
 * The columns of the CSV download: what the element shows, one row per variant. Their headers
 * are the catalog's `testsCsvHeaders`, in this order.
 */
const CSV_COLUMNS: readonly ((row: RawDataRecord) => Cell)[] = [
  (row) => row.experiment_id,
  (row) => row.status,
  (row) => row.type,
  (row) => row.path,
  (row) => row.created_at,
  (row) => row.completed_at,
  (row) => row.winning_variant,
  (row) => row.variant_id,
  (row) => row.content,
  (row) => row.ctr_mean,
  (row) => interval(row.ctr_intervals)?.[0],
  (row) => interval(row.ctr_intervals)?.[1],
  (row) => row.engagement_mean,
  (row) => interval(row.engagement_intervals)?.[0],
  (row) => interval(row.engagement_intervals)?.[1],
  (row) => row.probability,
];

/**
 * One CSV cell (RFC 4180). Text that a spreadsheet would read as a formula (starting with
 * = + - @, tab or carriage return) gets a leading apostrophe (OWASP's CSV injection advice);
 * text is always quoted. Numbers are ours and written as they are.
 */
export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

/** The CSV of the experiments' variants, with a header row in the reader's language; CRLF line ends. */
export function experimentsCsv(experiments: readonly Experiment[], headers: readonly string[]): string {
  const lines = [CSV_COLUMNS.map((_, index) => csvCell(headers[index] ?? '')).join(',')];
  for (const experiment of experiments) {
    for (const row of experiment.variants)
      lines.push(CSV_COLUMNS.map((cell) => csvCell(cell(row))).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
