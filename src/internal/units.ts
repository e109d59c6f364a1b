/** Measurements with their unit through `Intl.NumberFormat` (`style: 'unit'`), formatters cached. */
const formatters = new Map<string, Intl.NumberFormat>();

/** Units `Intl` can name (ECMA-402 sanctioned units) that our data uses. */
export type Unit = 'millisecond' | 'second' | 'minute' | 'percent';

/** "2.5 sec", "30%": one decimal at most, the unit written short in the locale. */
export function formatUnit(locale: string, value: number, unit: Unit): string {
  const key = `${locale}|${unit}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 });
    formatters.set(key, format);
  }
  return format.format(value);
}

/** A duration in seconds: seconds under a minute, minutes from there. */
export function formatDuration(locale: string, seconds: number): string {
  return seconds < 60 ? formatUnit(locale, seconds, 'second') : formatUnit(locale, seconds / 60, 'minute');
}
