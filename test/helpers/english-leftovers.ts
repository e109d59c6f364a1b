/**
 * Finds English left in a translated element: the literal words of every English term (a
 * sentence's words between its arguments) that the translation of the same term does not use.
 */
import { en, type Terms } from '../../src/locales/en.ts';
import type { Translation } from '../../src/internal/translations.ts';

const HOLE = '\u0000';

/** Stands for every argument of a term: a string, a number or a count (singular or plural). */
function argument(value: number): string {
  return Object.assign(new String(HOLE), { value }) as unknown as string;
}

/** The literal pieces of one term, for a count of 1 and of 5 (both plural forms of English). */
export function fragments(term: unknown): string[] {
  const texts: string[] = [];
  if (typeof term === 'string') texts.push(term);
  else if (Array.isArray(term)) texts.push(...term.map(String));
  else if (typeof term === 'function') {
    for (const count of [1, 5])
      texts.push(String(term(...Array.from({ length: term.length }, () => argument(count)))));
  }
  return texts
    .flatMap((text) => text.split(HOLE))
    .map((piece) => piece.trim())
    .filter(Boolean);
}

/** Words of at least four letters, with what surrounds them: pieces too short to tell languages apart are left out. */
function meaningful(piece: string): boolean {
  return /\p{L}{4,}/u.test(piece);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The English pieces `translation` must not show: those no term of the translation contains
 * (German says "Dark Social" too, so "Social" alone cannot tell).
 */
export function englishPieces(translation: Translation): Map<string, RegExp> {
  const pieces = new Map<string, RegExp>();
  const own = (Object.keys(en) as (keyof Terms)[]).flatMap((key) => fragments(translation[key])).join(HOLE);
  for (const key of Object.keys(en) as (keyof Terms)[]) {
    for (const piece of fragments(en[key])) {
      if (!meaningful(piece) || own.includes(piece)) continue;
      pieces.set(piece, new RegExp(`(?<!\\p{L})${escapeRegExp(piece)}(?!\\p{L})`, 'u'));
    }
  }
  return pieces;
}

/**
 * The English pieces found in `text`. The plain substring test first: a piece's pattern only
 * matches where the piece is, and WebKit's Unicode look-arounds made the patterns alone cost
 * over a second per language (hundreds of pieces over 330 texts).
 */
export function leftovers(text: string, pieces: Map<string, RegExp>): string[] {
  return [...pieces]
    .filter(([piece, pattern]) => text.includes(piece) && pattern.test(text))
    .map(([piece]) => piece);
}

/** Parts whose text comes from the data (titles, paths, values sent by pages), never from the catalog. */
const DATA = '[part~=title], [part~=link], [part~=headline], [part~=value], .content, .variant-id';

/** The text nodes under `root`, in document order. */
function textNodes(root: Node): Text[] {
  const nodes: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  return nodes;
}

/**
 * What a reader or a screen reader gets from an element: its shadow tree's text without the
 * data, and the labels and titles of its nodes. Read in place: copying the tree to cut the data
 * out took 2 to 2.5 times as long in each engine.
 */
export function readerText(element: Element): string {
  const root = element.shadowRoot!;
  const data = new Set([...root.querySelectorAll(DATA)].flatMap(textNodes));
  const text = textNodes(root)
    .filter((node) => !data.has(node))
    .map((node) => node.data)
    .join('');
  const labelled = [...root.querySelectorAll('[aria-label], [title]')].filter((node) => !node.closest(DATA));
  const attributes = labelled.flatMap((node) => [
    node.getAttribute('aria-label') ?? '',
    node.getAttribute('title') ?? '',
  ]);
  // Elements inside (an opened row's own numbers) are read too.
  const inner = [...root.querySelectorAll('*')].filter((node) => node.shadowRoot).map(readerText);
  return [text, ...attributes, ...inner].join('\n').replace(/\s+/g, ' ');
}
