import {
  html,
  LitElement,
  nothing,
  type CSSResultGroup,
  type CSSResultOrNative,
  type PropertyDeclarations,
  type PropertyValues,
  type TemplateResult,
} from 'lit';
import { registerShape, type Shape } from '../api/check-response.ts';
import { ROUTE_PATHS, type RouteName } from '../api/paths.ts';
import {
  LazyPolling,
  PollController,
  routeOf,
  type PollSnapshot,
  type SnapshotChange,
} from '../client/index.ts';
import { Announcer } from './announcer.ts';
import { errorText } from './error-text.ts';
import { PulseDataEvent, PulseErrorEvent } from './events.ts';
import type { FreezeControl, FreezeHost } from './freeze-control.ts';
import { cardTerms } from '../locales/en.ts';
import { LocalizeController, type English } from './localize.ts';
import type { SitesHost } from './sites-source.ts';
import { baseStyles } from './styles.ts';
import { UpdatedLine } from './updated-line.ts';

export type Theme = 'auto' | 'light' | 'dark';
/** Why `src` cannot be used, as the term that says so. */
interface SourceProblem {
  readonly term: 'sourceMissing' | 'sourceInvalid' | 'sourceWrong' | 'sourceTooMany' | 'sourceOne';
  readonly path: string;
}
/** What the body of the card shows. */
export type View = 'loading' | 'ready' | 'empty' | 'error';
/** Custom states, styled with `:state(...)`: the view plus the conditions that can add to it. */
export const STATES = ['loading', 'ready', 'empty', 'error', 'stale', 'paused', 'partial'] as const;
/** Most sites one element merges (`src` with several addresses). */
const MAX_SOURCES = 20;

/** Editors' tools an element shows when its `tools` attribute names them (with the newsroom features). */
export type Tool = 'freeze' | 'drill-down';

/** Makes the source of an element showing several sites in one (the network view). */
export type SitesSourceFactory = (host: SitesHost, onChange: SnapshotChange<unknown>) => DataSource<unknown>;

/**
 * The optional features an element class can be given, by name: what the element calls to make
 * or render each. An element module that has features of its own adds them to this interface.
 */
export interface Features {
  /** The network view: `src` takes several addresses, one per site, polled and merged. Without it an element takes one address. */
  sitesSource: SitesSourceFactory;
  /** The freeze control of a list, which `tools="freeze"` shows. */
  freezeControl: <Data>(host: FreezeHost<Data>) => FreezeControl<Data>;
}

/** What a feature brings to the class it is registered on, besides its behaviour. */
export interface FeatureAssets {
  /** Its styles, adopted by every element of the class made from then on. */
  readonly styles?: CSSResultGroup;
  /** Its English, which the class's elements read from then on. */
  readonly terms?: English;
  /** Lit properties it adds to the class (their attributes are read by the feature itself when the class was defined before). */
  readonly properties?: PropertyDeclarations;
}

/** An element class: PulseElement's subclasses, whatever their data. */
type ElementClass = (abstract new (
  ...args: never[]
) => LitElement) &
  Pick<typeof LitElement, 'createProperty' | 'styles' | 'elementStyles'> & { terms: English };

/** The features registered on each class. */
const registered = new WeakMap<object, Partial<Features>>();

/**
 * Gives the element class `type` (and its subclasses) the feature `name`, with its styles and
 * English. Optional features are registered by the modules that own them (src/newsroom.ts,
 * live-counter-typical.ts), never by the element modules, so a bundle that does not ask for a
 * feature carries neither it nor this function. Every element made after the registration has
 * the feature, whether its class was defined before or after: Lit reads `styles` once, when a
 * class is finalized, so a class already finalized gets the styles in its `elementStyles`.
 */
export function registerFeature<Name extends keyof Features>(
  type: ElementClass,
  name: Name,
  feature: Features[Name],
  assets: FeatureAssets = {},
): void {
  registered.set(type, { ...registered.get(type), [name]: feature });
  if (assets.styles) {
    type.styles = [type.styles ?? [], assets.styles];
    if (Object.hasOwn(type, 'elementStyles'))
      type.elementStyles.push(...([assets.styles].flat(Infinity as 1) as CSSResultOrNative[]));
  }
  // The object the class's elements read their English from, so elements made before have it too.
  Object.assign(type.terms, assets.terms);
  for (const [property, options] of Object.entries(assets.properties ?? {}))
    type.createProperty(property, options);
}

/**
 * Where an element's data comes from. The element sets `url` from `src`; the source tells the
 * element of every snapshot that changes what it shows, through the callback it was made with.
 * No data and no error in the snapshot means loading.
 */
export interface DataSource<Data> {
  /** The absolute address to load, or none. */
  url: string | undefined;
  /** What is known about `url` now. */
  readonly snapshot: PollSnapshot<Data>;
  /** With several sites: some failed at their last attempt while others have data. */
  readonly partial?: boolean;
  /** Whether to poll (`loading="lazy"` turns it off away from the viewport); a source that loads once ignores it. */
  active?: boolean;
  /** With several sites: the note naming those that fail, while the merge is partial. */
  note?(): TemplateResult | typeof nothing;
}

/**
 * What every pulse-widgets element shares: a data source for `src` (the page's poll hub unless
 * the subclass makes another), custom states, events, theme, inherited language, the card frame
 * with its loading, empty and error views, the "updated N s ago" line and the polite live
 * region. A subclass names its route and renders its data. The parts, properties, states and events below are inherited by every element.
 *
 * @csspart base - The card.
 * @csspart label - The text above the data.
 * @csspart message - The loading and empty messages.
 * @csspart error - The error message shown when there is no data.
 * @csspart partial - The note naming the sites missing from a merge of several (the network view, newsroom features).
 * @csspart freeze - The freeze control of a list (top-pages, referrer-bars, geo-list; newsroom features, with `tools="freeze"`): its button and, while frozen, the updates waiting.
 * @csspart freeze-button - The "Freeze" toggle button (`aria-pressed`).
 * @csspart waiting - "N updates waiting", while frozen.
 * @csspart updated - The "Updated N sec. ago" line, which becomes an "Out of date" notice.
 * @csspart live - The visually hidden polite live region.
 *
 * @cssproperty --pulse-color-text - Text colour.
 * @cssproperty --pulse-color-muted - Secondary text colour.
 * @cssproperty --pulse-color-surface - Card background.
 * @cssproperty --pulse-color-border - Card border.
 * @cssproperty --pulse-color-accent - Links and highlights.
 * @cssproperty --pulse-color-bar - Bar fill.
 * @cssproperty --pulse-color-track - Bar track and rules.
 * @cssproperty --pulse-color-up - Colour of a rise.
 * @cssproperty --pulse-color-down - Colour of a fall and of errors.
 * @cssproperty --pulse-color-warning - Text colour of the out-of-date notice.
 * @cssproperty --pulse-color-warning-surface - Background of the out-of-date notice.
 * @cssproperty --pulse-font-family - Font family.
 * @cssproperty --pulse-font-size - Base font size.
 * @cssproperty --pulse-radius - Card corner radius.
 * @cssproperty --pulse-spacing - Card padding and gaps.
 *
 * @cssstate loading - No data yet.
 * @cssstate ready - Showing data.
 * @cssstate empty - The data has nothing to show.
 * @cssstate error - No data can be shown; the card says why.
 * @cssstate stale - The data shown may be out of date.
 * @cssstate paused - Polling is paused (page hidden or offline).
 * @cssstate partial - Several sites are merged and one or more of them failed: their last data stays in, a note names them.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or `src` is unusable ({@link PulseErrorEvent}).
 */
export abstract class PulseElement<Data> extends LitElement {
  static override styles: CSSResultGroup = baseStyles;

  /** The route whose data the element shows; `src` must point at it. */
  static route: RouteName;

  /** The response shape of `route` (from `response-shapes.ts`), which the hub checks every body against. */
  static shape: Shape;

  /** The English the element bundles: the card's section of the catalog and its own. */
  static terms: English = { ...cardTerms };

  /**
   * Registers the element unless the name is taken: a page that loads two copies of the script
   * gets a warning, not an exception that would stop the rest of the page's scripts.
   */
  static define(name: string): void {
    const existing = customElements.get(name);
    if (!existing) customElements.define(name, this as unknown as CustomElementConstructor);
    else if (existing !== (this as unknown))
      console.warn(`pulse-widgets: <${name}> is already defined on this page; keeping the first definition.`);
  }

  /** Registers the shape of the element's route when the element is defined, before any body arrives. */
  protected static override finalize(): void {
    super.finalize();
    if (this.shape) registerShape(this.route, this.shape);
  }

  /** The element's language and its words. */
  protected readonly localize = new LocalizeController(this, (this.constructor as typeof PulseElement).terms);
  /** The polite live region's text; what {@link dataChanged} returns goes through it. */
  protected readonly announcer = new Announcer(this);
  /** The data for `src`, from {@link createSource}. */
  protected readonly source = this.createSource((next, previous) => this.#receive(next, previous));
  readonly #lazyPolling = new LazyPolling(this, () => this.source);
  /** The data shown before the current data (same `src`), for deltas and rank changes. */
  protected previousData: Data | undefined;
  /** Writes the "updated N s ago" line, once a second. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: a controller: it works through the hooks it adds to the element.
  readonly #updatedLine = new UpdatedLine(this, () => this.snapshot, this.localize);
  readonly #internals = this.attachInternals();
  /** A list's freeze control, with the newsroom features; shown with `tools="freeze"`. */
  readonly #freeze = this.feature('freezeControl')?.<Data>({
    localize: this.localize,
    announcer: this.announcer,
    latest: () => this.snapshot.data,
    resume: (held) => (this.previousData = held),
    requestUpdate: () => this.requestUpdate(),
  });
  #sourceProblem: SourceProblem | undefined;
  #dataUrl: string | undefined;

  /**
   * Lit properties are declared here, above their fields, rather than with `@property()`: every
   * element does the same, so no bundle carries the decorator and its helper (0.25 kB gz of the
   * four cards).
   */
  static override properties: PropertyDeclarations = {
    src: {},
    theme: { reflect: true },
    label: {},
    noHeading: { type: Boolean, attribute: 'no-heading', reflect: true },
    tools: {},
    loading: {},
  };

  /** Address of the resource on the cache endpoint, query included (required). */
  src = '';

  /**
   * Colour scheme: `auto` follows the page's `color-scheme` (light unless the page says it
   * supports dark; set `color-scheme` on an ancestor to theme every element at once), `light`
   * and `dark` force one.
   */
  theme: Theme = 'auto';

  /** Text above the data; defaults to a description of what is shown. */
  label = '';

  /** Hides the text above the data from view; it still names the element's list or table for screen readers. */
  noHeading = false;
  /**
   * `lazy`: no request until the element comes near the viewport, and none once it has been far
   * from it for a minute (it keeps what it showed), like `<img loading="lazy">`. For elements
   * below the fold: a footer, the end of a long article. `eager` (the default) polls always.
   */
  loading: 'eager' | 'lazy' = 'eager';

  /**
   * Editors' tools to show, space separated: `freeze` (a list's Freeze button), `drill-down` (a
   * `<top-pages>` row's own live numbers). None by default, so readers of a public page never see
   * them; they come with the newsroom features (the full bundle or `pulse-widgets/newsroom`).
   */
  tools = '';

  /**
   * The rows a list's body holds, from its attributes alone: its styles size the body as this
   * many fixed rows before any data, so loading, data, errors and every poll take the same box
   * and nothing on the page moves (no layout shift). Undefined when unbounded, or not a list.
   */
  protected get rows(): number | undefined {
    return undefined;
  }

  /** Whether `tools` names `tool`. */
  protected hasTool(tool: Tool): boolean {
    return this.tools.split(/\s+/).includes(tool);
  }

  /**
   * The feature `name` registered on this element's class or the nearest class above it (see
   * {@link registerFeature}).
   */
  protected feature<Name extends keyof Features>(name: Name): Features[Name] | undefined {
    for (let type: object = this.constructor; type !== LitElement; type = Object.getPrototypeOf(type)) {
      const feature = registered.get(type)?.[name];
      if (feature) return feature;
    }
    return undefined;
  }

  /** Label used when `label` is empty. */
  protected abstract get defaultLabel(): string;

  /** What the empty view says. */
  protected abstract get emptyText(): string;

  protected abstract isEmpty(data: Data): boolean;

  protected abstract renderData(data: Data, locale: string): TemplateResult;

  /**
   * Makes the data source, in the constructor (a subclass's own fields are not set yet): the
   * page's poll hub, polling `url` on its clock; several addresses with the network view.
   */
  protected createSource(onChange: SnapshotChange<Data>): DataSource<Data> {
    const sites = this.feature('sitesSource');
    if (!sites) return new PollController<Data>(this, onChange);
    return sites(
      { element: this, localize: this.localize, announcer: this.announcer },
      onChange as SnapshotChange<unknown>,
    ) as DataSource<Data>;
  }

  /**
   * Called, if defined, when new data arrives; returns the state the live region tells, in words
   * (the announcer decides whether and when to say it; with the first data it is only noted).
   */
  protected dataChanged?(data: Data, previous: Data | undefined, locale: string): string | undefined;

  /** The address actually loaded for `src` (already absolute), if an element rewrites its query. */
  protected requestUrl?(url: URL): URL;

  /** The locale of numbers, dates and names: the element's language (see {@link LocalizeController}). */
  protected get locale(): string {
    return this.localize.locale;
  }

  protected get snapshot(): PollSnapshot<Data> {
    return this.source.snapshot;
  }

  /** The data on screen: the latest, or what was shown when the reader froze the rows. */
  protected get shownData(): Data | undefined {
    return this.#freeze?.held ?? this.snapshot.data;
  }

  protected override willUpdate(changed: PropertyValues): void {
    // New data alone changes no property, and so not the address: no URL parsing on every tick.
    if (changed.size > 0) {
      const resolved = this.#resolveSource();
      if (resolved.problem?.term !== this.#sourceProblem?.term) {
        this.#sourceProblem = resolved.problem;
        if (resolved.problem)
          this.dispatchEvent(
            new PulseErrorEvent({ kind: 'source', message: this.#problemText(resolved.problem) }, false),
          );
      }
      if (resolved.url !== this.source.url) this.#freeze?.release();
      this.#lazyPolling.lazy = this.loading === 'lazy';
      this.source.url = resolved.url;
      // Through CSSOM, which a strict Content-Security-Policy allows (it blocks style attributes).
      const rows = this.rows;
      if (rows) this.style.setProperty('--_rows', String(rows));
      else this.style.removeProperty('--_rows');
    }
    this.#syncStates();
  }

  #resolveSource(): { url?: string; problem?: SourceProblem } {
    const route = (this.constructor as typeof PulseElement).route;
    const path = ROUTE_PATHS[route];
    const addresses = this.src.split(/\s+/).filter(Boolean);
    if (addresses.length === 0) return { problem: { term: 'sourceMissing', path } };
    const sites = this.feature('sitesSource');
    if (addresses.length > (sites ? MAX_SOURCES : 1))
      return { problem: { term: sites ? 'sourceTooMany' : 'sourceOne', path } };
    const urls: string[] = [];
    for (const address of addresses) {
      let url: URL;
      try {
        url = new URL(address, document.baseURI);
      } catch {
        return { problem: { term: 'sourceInvalid', path } };
      }
      if (!/^https?:$/.test(url.protocol) || routeOf(url.href) !== route)
        return { problem: { term: 'sourceWrong', path } };
      urls.push((this.requestUrl?.(url) ?? url).href);
    }
    return { url: [...new Set(urls)].join(' ') };
  }

  #problemText({ term, path }: SourceProblem): string {
    return term === 'sourceTooMany' ? this.localize.term(term, MAX_SOURCES) : this.localize.term(term, path);
  }

  #receive(next: PollSnapshot<Data>, previous: PollSnapshot<Data>): void {
    if (next.data !== undefined && next.data !== previous.data) {
      // Frozen, the rows and their rank changes stay as the reader saw them.
      if (!this.#freeze?.hold()) {
        this.previousData = this.#dataUrl === this.source.url ? previous.data : undefined;
        const message = this.dataChanged?.(next.data, this.previousData, this.locale);
        if (this.previousData === undefined) this.announcer.note(message);
        else this.announcer.announce(message);
      }
      this.#dataUrl = this.source.url;
      this.dispatchEvent(new PulseDataEvent(next.data, next.updatedAt));
    }
    if (next.error && next.error !== previous.error)
      this.dispatchEvent(new PulseErrorEvent(next.error, next.data !== undefined));
  }

  protected get view(): View {
    const { error } = this.snapshot;
    const data = this.shownData;
    if (this.#sourceProblem) return 'error';
    if (data === undefined) return error ? 'error' : 'loading';
    return this.isEmpty(data) ? 'empty' : 'ready';
  }

  #syncStates(): void {
    const view = this.view;
    const { stale, paused } = this.snapshot;
    const active = new Set<string>([view]);
    if (stale && view !== 'error') active.add('stale');
    if (paused) active.add('paused');
    if (view === 'ready' && this.source.partial) active.add('partial');
    for (const state of STATES) {
      if (active.has(state)) this.#internals.states.add(state);
      else this.#internals.states.delete(state);
    }
  }

  #renderBody(view: View, locale: string): TemplateResult {
    const { error } = this.snapshot;
    const data = this.shownData;
    switch (view) {
      case 'loading':
        return html`<p part="message" class="message loading">${this.localize.term('loading')}</p>`;
      case 'error':
        return html`<p part="error" class="message error">${this.#sourceProblem ? this.#problemText(this.#sourceProblem) : errorText(this.localize, error!)}</p>`;
      case 'empty':
        return html`<p part="message" class="message">${this.emptyText}</p>`;
      case 'ready':
        return this.renderData(data!, locale);
    }
  }

  protected override render(): TemplateResult {
    const locale = this.locale;
    const view = this.view;
    // The language's direction when the page gives none; English text on a page in a language we lack says so.
    return html`<div part="base" class="card" dir=${this.localize.dir ?? nothing} lang=${this.localize.lang ?? nothing}>
      <p part="label" class="label" id="label">${this.label || this.defaultLabel}</p>
      ${view === 'ready' && this.#freeze && this.hasTool('freeze') ? this.#freeze.render() : nothing}
      <div class="body">${this.#renderBody(view, locale)}</div>
      ${view === 'ready' ? this.source.note?.() : nothing}
      <p part="updated" class="updated"></p>
      <div part="live" class="visually-hidden" role="status">${this.announcer.text}</div>
    </div>`;
  }
}
