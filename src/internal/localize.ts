import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Terms } from '../locales/en.ts';
import { formatCount } from './format.ts';
import { observe, state, translationFor, type Count, type Translation } from './translations.ts';

/** The English an element bundles: the sections of the catalog it uses. */
export type English = Partial<Terms>;

function canonical(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

interface Resolved {
  readonly translation: Translation;
  /** Where numbers, dates and names are formatted: the page's tag when it is translated, else `en`. */
  readonly locale: string;
  /** The direction to set, when the page sets none above the language's own `lang`. */
  readonly dir: 'ltr' | 'rtl' | undefined;
  /** The translation's code when it is not the language the page declares (text then in English). */
  readonly lang: string | undefined;
}

/**
 * The language of an element: its own `lang`, else the nearest ancestor's (crossing shadow roots,
 * up to `<html>`), else the browser's, else English; a region falls back to its language
 * (`de-AT` → `de`). Numbers and dates follow the same language, so a sentence never mixes two: a
 * language with no translation is English throughout. A `dir` set on the way up to the `lang`
 * decides the direction; otherwise the language's does (Arabic: right to left).
 */
function resolve(element: Element, english: English): Resolved {
  let tag: string | undefined;
  let pageDir = false;
  for (
    let node: Element | null = element;
    node && !tag;
    node = node.parentElement ?? (node.getRootNode() as ShadowRoot).host ?? null
  ) {
    if (node.hasAttribute('dir')) pageDir = true;
    const lang = node.getAttribute('lang');
    if (lang) tag = canonical(lang);
  }
  tag ??= canonical(globalThis.navigator?.language ?? '') ?? 'en';
  // A page may register its own English (`en`); else the element's own is used.
  const found = translationFor(tag);
  const translation = found ?? (english as Translation);
  const untranslated = !found && !/^en\b/i.test(tag);
  return {
    translation,
    locale: untranslated ? 'en' : tag,
    dir: pageDir ? undefined : (found?.$dir ?? 'ltr'),
    lang: untranslated ? 'en' : undefined,
  };
}

type TermArgs<K extends keyof Terms> = Terms[K] extends (...args: infer A) => string ? A : [];
type TermValue<K extends keyof Terms> = Terms[K] extends (...args: never[]) => infer R ? R : Terms[K];

/**
 * An element's language (see {@link resolve}) and its words: `term(key, ...args)` from the
 * translation, `count(n)` for numbers in sentences. Re-renders its host when the language may
 * have changed: a `lang` or `dir` attribute anywhere on the page, a translation registered, the
 * browser's language.
 */
export class LocalizeController implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #english: English;
  #resolved: Resolved | undefined;
  #generation = -1;

  constructor(host: ReactiveControllerHost & HTMLElement, english: English) {
    this.#host = host;
    this.#english = english;
    host.addController(this);
  }

  hostConnected(): void {
    this.#generation = -1;
    state.hosts.add(this.#host);
    observe(document);
    for (let root = this.#host.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode())
      observe(root);
  }

  hostDisconnected(): void {
    state.hosts.delete(this.#host);
  }

  get #current(): Resolved {
    if (this.#generation !== state.generation || !this.#resolved) {
      this.#resolved = resolve(this.#host, this.#english);
      this.#generation = state.generation;
    }
    return this.#resolved;
  }

  /** The locale numbers, dates and names are formatted in. */
  get locale(): string {
    return this.#current.locale;
  }

  /** `rtl` or `ltr` when the element must set its direction itself; undefined when the page sets it. */
  get dir(): 'ltr' | 'rtl' | undefined {
    return this.#current.dir;
  }

  /** The language of the text when it differs from the page's (a language with no translation). */
  get lang(): string | undefined {
    return this.#current.lang;
  }

  /** A term of the element's language: a string, or a sentence made from `args`. */
  term<K extends keyof Terms>(key: K, ...args: TermArgs<K>): TermValue<K> {
    const term = (this.#current.translation as Terms)[key] as unknown;
    return (typeof term === 'function' ? term(...args) : term) as TermValue<K>;
  }

  /** A number for a sentence: formatted like every count, and telling `plurals` its form. */
  count(value: number): Count {
    const locale = this.locale;
    const shown = Math.abs(value) < 100 ? Math.round(value * 10) / 10 : Math.round(value);
    return { value: shown, toString: () => formatCount(locale, value) };
  }
}
