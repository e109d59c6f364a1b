/**
 * The translations registered on the page and the plural rules they use. Locale files import this
 * module, not the English catalog (which the elements bundle) nor the elements.
 */
import type { ReactiveControllerHost } from 'lit';
import type { Terms } from '../locales/en.ts';

/** A language's terms and what the page needs to know of it: its code, its own name, its direction. */
export interface Translation extends Terms {
  /** Language code, lower case (`de`, `pt`, `ar`): a page's `de-AT` uses `de`. */
  readonly $code: string;
  /** The language's name in itself (`Deutsch`), for language pickers. */
  readonly $name: string;
  /** Writing direction, used when the page sets none. */
  readonly $dir: 'ltr' | 'rtl';
}

/**
 * A number in a sentence: `${count}` is its text in the locale, `value` the number that text shows
 * (rounded as shown: "1.0" and "1" are one, 1.04 shown as "1" too), which chooses the plural form.
 */
export interface Count {
  readonly value: number;
  toString(): string;
}

type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { readonly other: string };

/**
 * The plural form of `count` in a language (`Intl.PluralRules`): English has one and other, Polish
 * one, few, many and other, Arabic six; Japanese only other. A translation file makes one with
 * its code: `const plural = plurals('pl')`.
 */
export function plurals(code: string): (count: Count, forms: PluralForms) => string {
  const rules = new Intl.PluralRules(code);
  return (count, forms) => forms[rules.select(count.value)] ?? forms.other;
}

/** Page-wide state, shared by every copy of the bundle on the page (and the locale files). */
interface LocalizeState {
  readonly translations: Map<string, Translation>;
  readonly hosts: Set<ReactiveControllerHost>;
  /** Grows when anything a language depends on changes; a resolution older than it is redone. */
  generation: number;
  /** One observer for the page: `lang` and `dir` anywhere in the document or in a shadow root holding an element. */
  observer?: MutationObserver;
  readonly observed: WeakSet<Node>;
}

const STATE = Symbol.for('pulse-widgets.localize');
export const state: LocalizeState = ((globalThis as Record<symbol, LocalizeState | undefined>)[STATE] ??= {
  translations: new Map(),
  hosts: new Set(),
  generation: 0,
  observed: new WeakSet(),
});

/** Every element re-resolves its language and renders again. */
function languageChanged(): void {
  state.generation++;
  for (const host of state.hosts) host.requestUpdate();
}

export function observe(root: Node): void {
  if (state.observed.has(root) || typeof MutationObserver === 'undefined') return;
  if (!state.observer) {
    state.observer = new MutationObserver(languageChanged);
    globalThis.addEventListener?.('languagechange', languageChanged);
  }
  state.observed.add(root);
  state.observer.observe(root, { attributes: true, subtree: true, attributeFilter: ['lang', 'dir'] });
}

/** Adds languages (importing `pulse-widgets/locales/de` does this); elements already on the page switch to them. */
export function registerTranslation(...translations: Translation[]): void {
  for (const translation of translations)
    state.translations.set(translation.$code.toLowerCase(), translation);
  languageChanged();
}

/** The registered translation for a language tag: `de-AT` → `de-at`, else `de`, else none. */
export function translationFor(tag: string): Translation | undefined {
  const parts = tag.toLowerCase().split('-');
  while (parts.length > 0) {
    const found = state.translations.get(parts.join('-'));
    if (found) return found;
    parts.pop();
  }
  return undefined;
}
