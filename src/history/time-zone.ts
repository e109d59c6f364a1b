/**
 * Wall-clock arithmetic in a host's time zone with nothing but `Intl`: where its day starts, and
 * the same weekday and time some weeks earlier, across daylight-saving changes.
 */

const MINUTE_MS = 60_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** Minutes to add to UTC to get the wall clock of `timeZone` at instant `t`. */
export function offsetMinutes(timeZone: string, t: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(t))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  return Math.round((wall - Math.floor(t / MINUTE_MS) * MINUTE_MS) / MINUTE_MS);
}

/** The instant whose wall clock in `timeZone` reads `wall` (ms of a UTC-encoded wall time). */
function instantOfWall(timeZone: string, wall: number): number {
  const guess = wall - offsetMinutes(timeZone, wall) * MINUTE_MS;
  // A second pass settles guesses that crossed a daylight-saving change.
  return wall - offsetMinutes(timeZone, guess) * MINUTE_MS;
}

/** The instant the local day holding `t` began (local midnight). */
export function startOfLocalDay(timeZone: string, t: number): number {
  const wall = t + offsetMinutes(timeZone, t) * MINUTE_MS;
  return instantOfWall(timeZone, Math.floor(wall / 86_400_000) * 86_400_000);
}

/** The instant `weeks` weeks before `t` at the same local weekday and time. */
export function weeksEarlier(timeZone: string, t: number, weeks: number): number {
  const wall = t + offsetMinutes(timeZone, t) * MINUTE_MS;
  return instantOfWall(timeZone, wall - weeks * 7 * 86_400_000);
}
