/**
 * The board is configured by its URL only. This reads and checks the parameters against what the
 * cache serves; anything unknown is left out and said in `problems`, never echoed as markup.
 */
import { BOARD_STRINGS as STRINGS } from './board.strings.ts';

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
  return params.getAll(name).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
}

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T, name: string, problems: string[]): T {
  if (value === null || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  problems.push(STRINGS.badValue(name, value, allowed));
  return fallback;
}

export function parseBoardParams(params: URLSearchParams, served: Served): { config: BoardConfig; problems: string[] } {
  const problems: string[] = [];
  const known = new Set(['sites', 'cards', 'theme', 'lang', 'size', 'numbers', 'rotate', 'title']);
  for (const name of new Set(params.keys())) if (!known.has(name)) problems.push(STRINGS.unknownParam(name));

  const wantedSites = [...new Set(list(params, 'sites'))];
  const sites = wantedSites.filter((site) => served.hosts.includes(site));
  for (const site of wantedSites) if (!served.hosts.includes(site)) problems.push(STRINGS.siteNotServed(site));
  if (sites.length === 0 && served.hosts[0] !== undefined) sites.push(served.hosts[0]);

  const hideNumbers = oneOf(params.get('numbers'), ['show', 'hide'], 'show', 'numbers', problems) === 'hide';
  const wantedCards = [...new Set(list(params, 'cards'))];
  let cards = CARDS.filter((card) => wantedCards.includes(card));
  for (const card of wantedCards) if (!(CARDS as readonly string[]).includes(card)) problems.push(STRINGS.badValue('cards', card, CARDS));
  if (cards.length === 0) cards = [...DEFAULT_CARDS];
  if (hideNumbers) {
    const dropped = cards.filter((card) => !NUMBERLESS_CARDS.has(card));
    if (dropped.length > 0 && params.has('cards')) problems.push(STRINGS.numbersHidden(dropped));
    cards = cards.filter((card) => NUMBERLESS_CARDS.has(card));
    if (cards.length === 0) cards = ['pages'];
  }

  let lang: string | undefined;
  const wantedLang = params.get('lang');
  if (wantedLang) {
    try {
      lang = Intl.getCanonicalLocales(wantedLang)[0];
    } catch {
      problems.push(STRINGS.badLang(wantedLang));
    }
  }

  let rotate = 0;
  const wantedRotate = params.get('rotate');
  if (wantedRotate) {
    const seconds = /^\d+$/.test(wantedRotate) ? Number(wantedRotate) : NaN;
    if (seconds === 0) rotate = 0;
    else if (seconds >= ROTATE_MIN_S && seconds <= ROTATE_MAX_S) rotate = seconds;
    else problems.push(STRINGS.badRotate(wantedRotate, ROTATE_MIN_S, ROTATE_MAX_S));
    if (rotate > 0 && sites.length < 2) {
      problems.push(STRINGS.rotateNeedsSites);
      rotate = 0;
    }
  }

  return {
    config: {
      sites,
      cards,
      theme: oneOf(params.get('theme'), THEMES, 'dark', 'theme', problems),
      lang,
      size: oneOf(params.get('size'), SIZES, 'm', 'size', problems),
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
