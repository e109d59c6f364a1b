/**
 * The board is configured by its URL only. This reads and checks the parameters against what the
 * cache serves; anything unknown is left out and said in `problems`, never echoed as markup.
 */
import { formatCount } from '../internal/format.ts';
import { translationFor, type Count } from '../internal/translations.ts';
import { en, type Terms } from '../locales/en.ts';
// A board is one page for a screen: it speaks every language (the elements on it too).
import '../locales/ar.ts';
import '../locales/de.ts';
import '../locales/es.ts';
import '../locales/fr.ts';
import '../locales/it.ts';
import '../locales/ja.ts';
import '../locales/nl.ts';
import '../locales/pl.ts';
import '../locales/pt.ts';

/** The cards a board can show, in the order they are laid out. */
export const CARDS = ['pages', 'counter', 'referrers', 'geo', 'sources', 'platforms'] as const;
export type Card = (typeof CARDS)[number];
/** Cards that can be shown without readership numbers (`numbers=hide`). */
const NUMBERLESS_CARDS: ReadonlySet<Card> = new Set(['pages']);
export const DEFAULT_CARDS: readonly Card[] = ['pages', 'counter', 'referrers', 'geo'];

export const THEMES = ['dark', 'light', 'auto'] as const;
export const SIZES = ['s', 'm', 'l'] as const;
export type Size = (typeof SIZES)[number];

/** Rotation bounds: faster is unreadable from across a room, slower is no rotation. */
export const ROTATE_MIN_S = 10;
export const ROTATE_MAX_S = 3600;
const MAX_TITLE = 80;

/** What a served endpoint tells its board (`/board/sites.json`). */
export interface Served {
  /** Where the cache routes live: '' or a path such as `/api`. */
  readonly prefix: string;
  readonly hosts: readonly string[];
}

export interface BoardConfig {
  readonly sites: readonly string[];
  readonly cards: readonly Card[];
  readonly theme: (typeof THEMES)[number];
  readonly lang: string | undefined;
  readonly size: Size;
  readonly hideNumbers: boolean;
  /** Seconds between views; 0 does not rotate. */
  readonly rotate: number;
  readonly title: string;
}

/** The parameters' values, each may be repeated (`sites=a&sites=b`, as a form sends them) or comma-separated. */
function list(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
}

/** The board's language tag: its `lang` parameter when it is one, else the browser's. */
function boardLang(params: URLSearchParams): string | undefined {
  try {
    return Intl.getCanonicalLocales(params.get('lang') || [])[0];
  } catch {
    return undefined;
  }
}

/** The board's language and its words (the page registers every translation). */
export interface BoardLanguage {
  readonly terms: Terms;
  /** For `<html lang>`: the elements follow it too. */
  readonly lang: string;
  readonly dir: 'ltr' | 'rtl';
  /** The board's own text is English although the board's language is another (one with no translation). */
  readonly english: boolean;
  /** A number for a sentence, formatted like the words around it. */
  count(value: number): Count;
}

/** The board's language: its `lang` parameter when it is a language tag, else the browser's; English words when it has no translation. */
export function boardLanguage(params: URLSearchParams): BoardLanguage {
  const wanted = boardLang(params);
  const translation = translationFor(wanted ?? globalThis.navigator?.language ?? 'en');
  const lang = wanted ?? translation?.$code ?? 'en';
  const english = !translation && !/^en\b/i.test(lang);
  return {
    terms: translation ?? en,
    lang,
    dir: translation?.$dir ?? 'ltr',
    english,
    count: (value) => ({ value, toString: () => formatCount(english ? 'en' : lang, value) }),
  };
}

export function parseBoardParams(
  params: URLSearchParams,
  served: Served,
  terms: Terms = en,
): { config: BoardConfig; problems: string[] } {
  const problems: string[] = [];
  const oneOf = <T extends string>(
    value: string | null,
    allowed: readonly T[],
    fallback: T,
    name: string,
  ): T => {
    if (value === null || value === '') return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    problems.push(terms.boardBadValue(name, value, allowed.join(', ')));
    return fallback;
  };
  const known = new Set(['sites', 'cards', 'theme', 'lang', 'size', 'numbers', 'rotate', 'title']);
  for (const name of new Set(params.keys()))
    if (!known.has(name)) problems.push(terms.boardUnknownParam(name));

  const wantedSites = [...new Set(list(params, 'sites'))];
  const sites = wantedSites.filter((site) => served.hosts.includes(site));
  for (const site of wantedSites)
    if (!served.hosts.includes(site)) problems.push(terms.boardSiteNotServed(site));
  if (sites.length === 0 && served.hosts[0] !== undefined) sites.push(served.hosts[0]);

  const hideNumbers = oneOf(params.get('numbers'), ['show', 'hide'], 'show', 'numbers') === 'hide';
  const wantedCards = [...new Set(list(params, 'cards'))];
  let cards = CARDS.filter((card) => wantedCards.includes(card));
  for (const card of wantedCards)
    if (!(CARDS as readonly string[]).includes(card))
      problems.push(terms.boardBadValue('cards', card, CARDS.join(', ')));
  if (cards.length === 0) cards = [...DEFAULT_CARDS];
  if (hideNumbers) {
    const dropped = cards.filter((card) => !NUMBERLESS_CARDS.has(card));
    if (dropped.length > 0 && params.has('cards'))
      problems.push(terms.boardNumbersHidden(dropped.join(', ')));
    cards = cards.filter((card) => NUMBERLESS_CARDS.has(card));
    if (cards.length === 0) cards = ['pages'];
  }

  const wantedLang = params.get('lang');
  const lang = wantedLang ? boardLang(params) : undefined;
  if (wantedLang && !lang) problems.push(terms.boardBadLang(wantedLang));

  let rotate = 0;
  const wantedRotate = params.get('rotate');
  if (wantedRotate) {
    const seconds = /^\d+$/.test(wantedRotate) ? Number(wantedRotate) : NaN;
    if (seconds === 0) rotate = 0;
    else if (seconds >= ROTATE_MIN_S && seconds <= ROTATE_MAX_S) rotate = seconds;
    else problems.push(terms.boardBadRotate(wantedRotate, ROTATE_MIN_S, ROTATE_MAX_S));
    if (rotate > 0 && sites.length < 2) {
      problems.push(terms.boardRotateNeedsSites);
      rotate = 0;
    }
  }

  return {
    config: {
      sites,
      cards,
      theme: oneOf(params.get('theme'), THEMES, 'dark', 'theme'),
      lang,
      size: oneOf(params.get('size'), SIZES, 'm', 'size'),
      hideNumbers,
      rotate,
      title: (params.get('title') ?? '').trim().slice(0, MAX_TITLE),
    },
    problems,
  };
}

/**
 * What the board shows in turn: all its sites together, then each one alone (when rotating).
 * A view is the list of sites its cards merge.
 */
export function boardViews(config: BoardConfig): string[][] {
  const all = [...config.sites];
  return config.rotate > 0 && all.length > 1 ? [all, ...all.map((site) => [site])] : [all];
}
