/**
 * The doctor's findings as text a newsroom can paste into a bug report: per route the request,
 * status, time and rate-limit headers (the "not now" first, when the route was asked again),
 * then each kind of difference once (with how many places and one example path), then a last
 * line that says whether the widgets can show everything.
 */
import type { Difference } from '../../api/index.ts';
import type { RouteReport } from './doctor.ts';

const OUTCOMES: Record<RouteReport['outcome'], string> = {
  ok: 'usable',
  invalid:
    'UNUSABLE: an essential field is missing or of another type (the cache answers 502 upstream_invalid)',
  status: 'UNUSABLE: the service did not answer 200',
  content_type: 'UNUSABLE: the answer is not JSON (Content-Type)',
  bad_json: 'UNUSABLE: the answer does not parse as JSON',
  network: 'UNUSABLE: the service could not be reached',
  timeout: 'UNUSABLE: no answer in time',
};

/** One line of a difference: what, where, and what reading it does. */
export function describeDifference(difference: Difference, places = 1): string {
  const { kind, essential, pattern, path, expected, found, dropped, entry, addedBy } = difference;
  const where = places > 1 ? `${pattern} (${places} places, e.g. ${path})` : path;
  const what =
    kind === 'unknown'
      ? `unknown field ${where} (${found}): kept and passed through`
      : kind === 'missing'
        ? `${essential ? 'essential' : 'optional'} field missing: ${where} (${expected})${addedBy ? `, added by ${addedBy}=1` : ''}`
        : `other type at ${where}: expected ${expected}, found ${found}`;
  if (!dropped) return what;
  return `${what}; ${entry ? 'entry' : 'field'} dropped${dropped === path ? '' : `: ${dropped}`}`;
}

/** Differences of one kind at one pattern, counted: a list of 10 pages that all lack a field is one line. */
export function groupDifferences(
  differences: readonly Difference[],
): { difference: Difference; places: number }[] {
  const groups = new Map<string, { difference: Difference; places: number }>();
  for (const difference of differences) {
    const key = `${difference.kind} ${difference.pattern} ${difference.expected ?? ''} ${difference.found} ${difference.dropped ? 'dropped' : ''}`;
    const group = groups.get(key);
    if (group) group.places++;
    else groups.set(key, { difference, places: 1 });
  }
  return [...groups.values()];
}

export function textReport(reports: readonly RouteReport[], heading: string): string {
  const lines = [heading, ''];
  const limits = (rateLimit: Record<string, string>) =>
    Object.entries(rateLimit)
      .map(([name, value]) => `${name}: ${value}`)
      .join(', ') || 'no rate-limit headers';
  for (const report of reports) {
    lines.push(`${report.route}  GET ${report.request}`);
    const { notNow } = report;
    if (notNow)
      lines.push(
        `  HTTP ${notNow.status} in ${notNow.ms} ms; ${limits(notNow.rateLimit)}; asked again ${notNow.waitedMs} ms later, as it said`,
      );
    lines.push(
      `  ${report.status === undefined ? 'no answer' : `HTTP ${report.status}`} in ${report.ms} ms; ${limits(report.rateLimit)}`,
    );
    lines.push(`  ${OUTCOMES[report.outcome]}${report.error ? ` (${report.error})` : ''}`);
    if (report.problem) lines.push(`  refused for: ${describeDifference(report.problem)}`);
    const groups = groupDifferences(report.differences);
    if (report.outcome === 'ok' && groups.length === 0) lines.push('  no difference from the contract');
    for (const { difference, places } of groups) lines.push(`  - ${describeDifference(difference, places)}`);
    lines.push('');
  }
  const unusable = reports.filter((report) => report.outcome !== 'ok').length;
  const differing = reports.filter(
    (report) => report.outcome === 'ok' && report.differences.length > 0,
  ).length;
  lines.push(
    `Routes: ${reports.length - unusable - differing} match the contract, ${differing} differ but are usable, ${unusable} unusable.`,
  );
  return `${lines.join('\n')}\n`;
}
