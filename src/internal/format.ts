/**
 * Numbers, durations, ages and names through `Intl`, with formatters cached per locale and their
 * results memoised: building a formatter costs far more than using one, and using one far more
 * than a lookup, which matters for a 100-row table redrawn every 3 s.
 */
import { memoize } from './memo.ts';

/** Per locale, then per name: no key string is built on the hot path. */
const formatters = new Map<string, Map<string, unknown>>();

/** One formatter (or memoised formatting function) per locale and name. */
function cached<F>(locale: string, name: string, make: () => F): F {
  let byName = formatters.get(locale);
  if (!byName) formatters.set(locale, (byName = new Map()));
  let formatter = byName.get(name) as F | undefined;
  if (formatter === undefined) {
    formatter = make();
    byName.set(name, formatter);
  }
  return formatter;
}

/** `format(value)` of one `Intl.NumberFormat`, memoised; `name` identifies `options`. */
function numberFormat(
  locale: string,
  name: string,
  options: Intl.NumberFormatOptions,
): (value: number) => string {
  return cached(locale, name, () => {
    const format = new Intl.NumberFormat(locale, options);
    return memoize((value: number) => format.format(value));
  });
}

/** Counts may be floats (sampled sites): one decimal below 100, whole numbers above. */
export function formatCount(locale: string, value: number): string {
  return Math.abs(value) < 100
    ? numberFormat(locale, 'count1', { maximumFractionDigits: 1 })(value)
    : numberFormat(locale, 'count0', { maximumFractionDigits: 0 })(value);
}

/** A measured value (an average, a sum): at most two decimals. */
export function formatDecimal(locale: string, value: number): string {
  return numberFormat(locale, 'decimal2', { maximumFractionDigits: 2 })(value);
}

/**
 * A share in [0, 1] as a percentage; one decimal only where a whole percent would read 0.
 * Rounded before formatting, so the memo holds at most a few hundred percentages.
 */
export function formatShare(locale: string, fraction: number): string {
  return fraction > 0 && fraction < 0.01
    ? numberFormat(locale, 'percent1', { style: 'percent', maximumFractionDigits: 1 })(
        Math.round(fraction * 1000) / 1000,
      )
    : numberFormat(locale, 'percent0', { style: 'percent', maximumFractionDigits: 0 })(
        Math.round(fraction * 100) / 100,
      );
}

/** Units `Intl` can name (ECMA-402 sanctioned units) that our data uses. */
export type Unit = 'millisecond' | 'second' | 'minute' | 'percent';

/** "2.5 sec", "30%": one decimal at most, the unit written short in the locale. */
export function formatUnit(locale: string, value: number, unit: Unit): string {
  return numberFormat(locale, `${unit} short`, {
    style: 'unit',
    unit,
    unitDisplay: 'short',
    maximumFractionDigits: 1,
  })(value);
}

/** A duration in seconds: seconds under a minute, minutes from there. */
export function formatDuration(locale: string, seconds: number): string {
  return seconds < 60 ? formatUnit(locale, seconds, 'second') : formatUnit(locale, seconds / 60, 'minute');
}

/** Engaged time: seconds under a minute, minutes (one decimal) above. */
export function formatSeconds(locale: string, seconds: number): string {
  return seconds < 60
    ? numberFormat(locale, 'second', {
        style: 'unit',
        unit: 'second',
        unitDisplay: 'narrow',
        maximumFractionDigits: 0,
      })(seconds)
    : numberFormat(locale, 'minute', {
        style: 'unit',
        unit: 'minute',
        unitDisplay: 'narrow',
        maximumFractionDigits: 1,
      })(seconds / 60);
}

/** "3 sec. ago", "2 min. ago" in the locale. */
export function formatAge(locale: string, ageMs: number): string {
  const format = cached(
    locale,
    'relative',
    () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' }),
  );
  const seconds = Math.max(0, Math.round(ageMs / 1000));
  if (seconds < 60) return format.format(-seconds, 'second');
  if (seconds < 3600) return format.format(-Math.floor(seconds / 60), 'minute');
  return format.format(-Math.floor(seconds / 3600), 'hour');
}

/** "A, B, C" in the locale. */
export function formatList(locale: string, items: readonly string[]): string {
  const format = cached(locale, 'list', () => {
    const list = new Intl.ListFormat(locale, { style: 'short', type: 'unit' });
    // Keyed by the items joined with a control character; a name holding one would only be listed as two.
    return memoize((joined: string) => list.format(joined.split('\u001f')));
  });
  return items.length === 0 ? '' : format(items.join('\u001f'));
}

/** The localized name of a country or region code (`FR`, `419`), or undefined when unknown. */
export function regionName(locale: string, code: string): string | undefined {
  const names = cached(
    locale,
    'region',
    () => new Intl.DisplayNames(locale, { type: 'region', fallback: 'none' }),
  );
  try {
    return names.of(code.toUpperCase());
  } catch {
    return undefined;
  }
}
