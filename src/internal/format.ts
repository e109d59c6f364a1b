/** Numbers, durations, ages and names through `Intl`, with formatters cached per locale. */
const formatters = new Map<string, unknown>();

/** One formatter per key: building an Intl formatter costs far more than using one. */
function cached<F>(key: string, make: () => F): F {
  let formatter = formatters.get(key) as F | undefined;
  if (!formatter) {
    formatter = make();
    formatters.set(key, formatter);
  }
  return formatter;
}

function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `number|${locale}|${options.style}|${options.unit}|${options.maximumFractionDigits}`;
  return cached(key, () => new Intl.NumberFormat(locale, options));
}

/** Counts may be floats (sampled sites): one decimal below 100, whole numbers above. */
export function formatCount(locale: string, value: number): string {
  return numberFormat(locale, { maximumFractionDigits: Math.abs(value) < 100 ? 1 : 0 }).format(value);
}

/** A share in [0, 1] as a percentage; one decimal only where a whole percent would read 0. */
export function formatShare(locale: string, fraction: number): string {
  const small = fraction > 0 && fraction < 0.01;
  return numberFormat(locale, { style: 'percent', maximumFractionDigits: small ? 1 : 0 }).format(fraction);
}

/** Engaged time: seconds under a minute, minutes (one decimal) above. */
export function formatSeconds(locale: string, seconds: number): string {
  return seconds < 60
    ? numberFormat(locale, { style: 'unit', unit: 'second', unitDisplay: 'narrow', maximumFractionDigits: 0 }).format(seconds)
    : numberFormat(locale, { style: 'unit', unit: 'minute', unitDisplay: 'narrow', maximumFractionDigits: 1 }).format(seconds / 60);
}

/** "3 sec. ago", "2 min. ago" in the locale. */
export function formatAge(locale: string, ageMs: number): string {
  const format = cached(`relative|${locale}`, () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' }));
  const seconds = Math.max(0, Math.round(ageMs / 1000));
  if (seconds < 60) return format.format(-seconds, 'second');
  if (seconds < 3600) return format.format(-Math.floor(seconds / 60), 'minute');
  return format.format(-Math.floor(seconds / 3600), 'hour');
}

/** "A, B, C" in the locale. */
export function formatList(locale: string, items: readonly string[]): string {
  return cached(`list|${locale}`, () => new Intl.ListFormat(locale, { style: 'short', type: 'unit' })).format(items);
}

/** The localized name of a country or region code (`FR`, `419`), or undefined when unknown. */
export function regionName(locale: string, code: string): string | undefined {
  const names = cached(`region|${locale}`, () => new Intl.DisplayNames(locale, { type: 'region', fallback: 'none' }));
  try {
    return names.of(code.toUpperCase());
  } catch {
    return undefined;
  }
}

/**
 * The language an element is in: its own or its nearest ancestor's `lang`, crossing shadow
 * roots, then the browser's. An invalid tag falls back rather than throwing.
 */
export function inheritedLang(element: Element): string {
  let node: Element | null = element;
  while (node) {
    const lang = node.getAttribute('lang');
    if (lang) return usableLocale(lang);
    node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null);
  }
  return usableLocale(globalThis.navigator?.language ?? 'en');
}

function usableLocale(tag: string): string {
  return cached(`locale|${tag}`, () => {
    try {
      return Intl.getCanonicalLocales(tag)[0] ?? 'en';
    } catch {
      return 'en';
    }
  });
}
