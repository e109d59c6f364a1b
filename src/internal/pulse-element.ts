import type { PropertyDeclaration } from '@lit/reactive-element';
import { html, nothing, render, type TemplateResult } from 'lit/html.js';
import { registerShape, type Shape } from '../api/check-response.ts';
import type { RouteName } from '../api/paths.ts';
import type { PollSnapshot, SnapshotChange } from '../client/index.ts';
import { Announcer } from './announcer.ts';
import { featureOf, type Features } from './features.ts';
import { Frame, FrameElement, hubSource, type DataSource, type View } from './frame.ts';
import { cardTerms } from '../locales/en.ts';
import type { Changes } from './lean-element.ts';
import { LocalizeController, type English } from './localize.ts';
import type { Styles } from './style-sheet.ts';
import { baseStyles } from './styles.ts';

export { registerFeature, type FeatureAssets, type Features, type SitesSourceFactory } from './features.ts';
export { STATES, type DataSource, type Theme, type View } from './frame.ts';

/** Editors' tools an element shows when its `tools` attribute names them (with the newsroom features). */
export type Tool = 'freeze' | 'drill-down';

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
export abstract class PulseElement<Data> extends FrameElement {
  static override styles: Styles = baseStyles;

  /** The route whose data the element shows; `src` must point at it. */
  static route: RouteName;

  /** The response shape of `route` (from `response-shapes.ts`), which the hub checks every body against. */
  static shape: Shape;

  /** The English the element bundles: the card's section of the catalog and its own. */
  static terms: English = { ...cardTerms };

  /**
   * Lit's declarations the lean base leaves to the cards, for our elements and their subclasses:
   * `state` (a property without an attribute) and `type` Object or Array (the attribute is JSON;
   * unreadable JSON is null, as in Lit).
   */
  static override createProperty(name: string, options: PropertyDeclaration = {}): void {
    const { type, state } = options;
    super.createProperty(name, {
      ...options,
      ...(state && { attribute: false }),
      ...((type === Object || type === Array) && { type: parseJson }),
    });
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
  /** What the element does besides drawing: its source, events, view, states, lazy polling, updated line. */
  readonly #frame: Frame<Data> = new Frame<Data>(this, {
    route: (this.constructor as typeof PulseElement).route,
    localize: this.localize,
    announcer: this.announcer,
    isEmpty: (data) => this.isEmpty(data),
    dataChanged: (data, previous, locale) => this.dataChanged?.(data, previous, locale),
    requestUrl: (url) => this.requestUrl?.(url) ?? url,
    createSource: (onChange) => this.createSource(onChange),
    freeze: () => this.#freeze,
  });
  /** The data for `src`, from {@link createSource}. */
  protected readonly source = this.#frame.source;
  /** A list's freeze control, with the newsroom features; shown with `tools="freeze"`. */
  readonly #freeze = this.feature('freezeControl')?.<Data>({
    localize: this.localize,
    announcer: this.announcer,
    latest: () => this.snapshot.data,
    resume: (held) => (this.previousData = held),
    requestUpdate: () => this.requestUpdate(),
  });

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
    return featureOf(this, name);
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
    return hubSource(this, this.localize, this.announcer, onChange);
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

  /** The data shown before the current data (same `src`), for deltas and rank changes. */
  protected get previousData(): Data | undefined {
    return this.#frame.previousData;
  }

  protected set previousData(data: Data | undefined) {
    this.#frame.previousData = data;
  }

  /** The data on screen: the latest, or what was shown when the reader froze the rows. */
  protected get shownData(): Data | undefined {
    return this.#frame.shownData;
  }

  protected get view(): View {
    return this.#frame.view;
  }

  /**
   * Draws the card as a Lit element would, `render()`'s template through lit-html: the base calls
   * `willUpdate`, the controllers' `hostUpdate`, this, the controllers' `hostUpdated`, then
   * `updated` (`willUpdate` and `updated` get the properties that changed, with their values
   * before).
   */
  protected override update(): void {
    render(this.render(), this.renderRoot, { host: this });
  }

  /** Before each drawing: the frame follows `src` and the data, and a list's body its rows. */
  protected override willUpdate(changed: Changes): void {
    this.#frame.update(changed.size > 0);
    if (changed.size === 0) return;
    // Through CSSOM, which a strict Content-Security-Policy allows (it blocks style attributes).
    const rows = this.rows;
    if (rows) this.style.setProperty('--_rows', String(rows));
    else this.style.removeProperty('--_rows');
  }

  #renderBody(view: View, locale: string): TemplateResult {
    switch (view) {
      case 'loading':
        return html`<p part="message" class="message loading">${this.localize.term('loading')}</p>`;
      case 'error':
        return html`<p part="error" class="message error">${this.#frame.errorText}</p>`;
      case 'empty':
        return html`<p part="message" class="message">${this.emptyText}</p>`;
      case 'ready':
        return this.renderData(this.shownData!, locale);
    }
  }

  #renderNote(): TemplateResult | typeof nothing {
    const note = this.source.note?.();
    return note ? html`<p part="partial" class="partial">${note}</p>` : nothing;
  }

  protected render(): TemplateResult {
    const locale = this.locale;
    const view = this.view;
    // The language's direction when the page gives none; English text on a page in a language we lack says so.
    return html`<div part="base" class="card" dir=${this.localize.dir ?? nothing} lang=${this.localize.lang ?? nothing}>
      <p part="label" class="label" id="label">${this.label || this.defaultLabel}</p>
      ${view === 'ready' && this.#freeze && this.hasTool('freeze') ? this.#freeze.render() : nothing}
      <div class="body">${this.#renderBody(view, locale)}</div>
      ${view === 'ready' ? this.#renderNote() : nothing}
      <p part="updated" class="updated"></p>
      <div part="live" class="visually-hidden" role="status">${this.announcer.text}</div>
    </div>`;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
