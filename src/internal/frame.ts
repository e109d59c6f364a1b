/**
 * What every pulse-widgets element does besides drawing: resolving `src` (and saying why it
 * cannot be used), receiving the data source's snapshots and dispatching `pulse-data` and
 * `pulse-error`, deciding the view, keeping the custom states in step, `loading="lazy"`, the
 * "updated" line and the live region. The cards (PulseElement, drawing lit-html templates) and
 * `<live-counter>` (drawn by its own DOM code), both on the lean base, each keep one {@link Frame}.
 */
import type { PropertyDeclarations, ReactiveControllerHost } from '@lit/reactive-element';
import { ROUTE_PATHS, type RouteName } from '../api/paths.ts';
import {
  LazyPolling,
  PollController,
  routeOf,
  type PollSnapshot,
  type SnapshotChange,
} from '../client/index.ts';
import type { Announcer } from './announcer.ts';
import { errorText } from './error-text.ts';
import { PulseDataEvent, PulseErrorEvent } from './events.ts';
import { featureOf } from './features.ts';
import { LeanElement } from './lean-element.ts';
import type { LocalizeController } from './localize.ts';
import { UpdatedLine } from './updated-line.ts';

export type Theme = 'auto' | 'light' | 'dark';
/** What the body of the card shows. */
export type View = 'loading' | 'ready' | 'empty' | 'error';
/** Custom states, styled with `:state(...)`: the view plus the conditions that can add to it. */
export const STATES = ['loading', 'ready', 'empty', 'error', 'stale', 'paused', 'partial'] as const;
export type State = (typeof STATES)[number];
/** Most sites one element merges (`src` with several addresses). */
export const MAX_SOURCES = 20;

/** Why `src` cannot be used, as the term that says so. */
export interface SourceProblem {
  readonly term: 'sourceMissing' | 'sourceInvalid' | 'sourceWrong' | 'sourceTooMany' | 'sourceOne';
  readonly path: string;
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
  note?(): string | undefined;
}

/**
 * What every element is: the lean base with the attributes every element has, declared as
 * `static properties` (Lit's declarations, not decorators: no bundle carries the decorator and
 * its helper, 0.25 kB gz of the four cards), which the base reads from every class of the chain.
 */
export abstract class FrameElement extends LeanElement {
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
}

/**
 * The absolute address(es) to load for `src`, or why it cannot be used: one address (several,
 * up to MAX_SOURCES, with the network view), each http(s) and on `route`, resolved against
 * `base`, rewritten by `requestUrl`, duplicates dropped.
 */
export function resolveSource(
  src: string,
  route: RouteName,
  base: string,
  sites: boolean,
  requestUrl: (url: URL) => URL = (url) => url,
): { url?: string; problem?: SourceProblem } {
  const path = ROUTE_PATHS[route];
  const addresses = src.split(/\s+/).filter(Boolean);
  if (addresses.length === 0) return { problem: { term: 'sourceMissing', path } };
  if (addresses.length > (sites ? MAX_SOURCES : 1))
    return { problem: { term: sites ? 'sourceTooMany' : 'sourceOne', path } };
  const urls: string[] = [];
  for (const address of addresses) {
    let url: URL;
    try {
      url = new URL(address, base);
    } catch {
      return { problem: { term: 'sourceInvalid', path } };
    }
    if (!/^https?:$/.test(url.protocol) || routeOf(url.href) !== route)
      return { problem: { term: 'sourceWrong', path } };
    urls.push(requestUrl(url).href);
  }
  return { url: [...new Set(urls)].join(' ') };
}

/** The view: an unusable `src` or an error with no data is an error; no data yet is loading. */
export function viewOf(problem: boolean, hasData: boolean, error: boolean, empty: boolean): View {
  if (problem) return 'error';
  if (!hasData) return error ? 'error' : 'loading';
  return empty ? 'empty' : 'ready';
}

/** The custom states of a view: stale unless it is an error, paused, partial only when ready. */
export function statesOf(
  view: View,
  { stale, paused }: Pick<PollSnapshot, 'stale' | 'paused'>,
  partial: boolean,
): Set<State> {
  const states = new Set<State>([view]);
  if (stale && view !== 'error') states.add('stale');
  if (paused) states.add('paused');
  if (view === 'ready' && partial) states.add('partial');
  return states;
}

/** What an element lends its frame. */
export interface FrameHost extends ReactiveControllerHost, HTMLElement {
  src: string;
  loading: string;
  /** Where the element's parts are: the "updated" line is written there. */
  readonly renderRoot: ParentNode;
}

/** A list's freeze control, as far as the frame needs it (newsroom features). */
export interface Freeze<Data> {
  readonly held: Data | undefined;
  /** New data arrived: whether it is held back. */
  hold(): boolean;
  release(): void;
}

/** What an element's frame is made with: its route, its words and the decisions that are the element's own. */
export interface FrameSpec<Data> {
  readonly route: RouteName;
  readonly localize: LocalizeController;
  readonly announcer: Announcer;
  isEmpty(data: Data): boolean;
  /** The state the live region tells when new data arrives (see PulseElement's `dataChanged`). */
  dataChanged?(data: Data, previous: Data | undefined, locale: string): string | undefined;
  /** The address actually loaded for `src`, if the element rewrites its query. */
  requestUrl?(url: URL): URL;
  /** The element's own source (headline tests load once); else the hub, or several sites with the network view. */
  createSource?(onChange: SnapshotChange<Data>): DataSource<Data>;
  freeze?(): Freeze<Data> | undefined;
}

/** The source of an element that makes no other: the page's hub, or several sites with the network view. */
export function hubSource<Data>(
  element: ReactiveControllerHost & HTMLElement,
  localize: LocalizeController,
  announcer: Announcer,
  onChange: SnapshotChange<Data>,
): DataSource<Data> {
  const sites = featureOf(element, 'sitesSource');
  if (!sites) return new PollController<Data>(element, onChange);
  return sites({ element, localize, announcer }, onChange as SnapshotChange<unknown>) as DataSource<Data>;
}

/** One element's frame (see the module's comment). */
export class Frame<Data> {
  /** The data for `src`. */
  readonly source: DataSource<Data>;
  /** The data shown before the current data (same `src`), for deltas and rank changes. */
  previousData: Data | undefined;
  readonly #host: FrameHost;
  readonly #spec: FrameSpec<Data>;
  readonly #lazyPolling: LazyPolling;
  readonly #internals: ElementInternals;
  #problem: SourceProblem | undefined;
  #dataUrl: string | undefined;

  constructor(host: FrameHost, spec: FrameSpec<Data>) {
    this.#host = host;
    this.#spec = spec;
    const onChange: SnapshotChange<Data> = (next, previous) => this.#receive(next, previous);
    this.source = spec.createSource?.(onChange) ?? hubSource(host, spec.localize, spec.announcer, onChange);
    this.#lazyPolling = new LazyPolling(host, () => this.source);
    new UpdatedLine(host, () => this.source.snapshot, spec.localize);
    this.#internals = host.attachInternals();
  }

  get snapshot(): PollSnapshot<Data> {
    return this.source.snapshot;
  }

  /** The data on screen: the latest, or what was shown when the reader froze the rows. */
  get shownData(): Data | undefined {
    return this.#spec.freeze?.()?.held ?? this.snapshot.data;
  }

  get view(): View {
    const data = this.shownData;
    return viewOf(
      this.#problem !== undefined,
      data !== undefined,
      this.snapshot.error !== undefined,
      data !== undefined && this.#spec.isEmpty(data),
    );
  }

  /** What the error view says: why `src` cannot be used, or why the request failed. */
  get errorText(): string {
    const problem = this.#problem;
    if (!problem) return errorText(this.#spec.localize, this.snapshot.error!);
    return this.#problemText(problem);
  }

  /**
   * Before each update: when properties changed, follows `src` and `loading` (new data alone
   * changes neither, so no URL parsing on every tick); then the custom states.
   */
  update(propertiesChanged: boolean): void {
    if (propertiesChanged) {
      const host = this.#host;
      const resolved = resolveSource(
        host.src,
        this.#spec.route,
        document.baseURI,
        featureOf(host, 'sitesSource') !== undefined,
        this.#spec.requestUrl,
      );
      if (resolved.problem?.term !== this.#problem?.term) {
        this.#problem = resolved.problem;
        if (resolved.problem)
          host.dispatchEvent(
            new PulseErrorEvent({ kind: 'source', message: this.#problemText(resolved.problem) }, false),
          );
      }
      if (resolved.url !== this.source.url) this.#spec.freeze?.()?.release();
      this.#lazyPolling.lazy = host.loading === 'lazy';
      this.source.url = resolved.url;
    }
    const view = this.view;
    const states = statesOf(view, this.snapshot, this.source.partial === true);
    for (const state of STATES) {
      if (states.has(state)) this.#internals.states.add(state);
      else this.#internals.states.delete(state);
    }
  }

  #problemText({ term, path }: SourceProblem): string {
    const { localize } = this.#spec;
    return term === 'sourceTooMany' ? localize.term(term, MAX_SOURCES) : localize.term(term, path);
  }

  #receive(next: PollSnapshot<Data>, previous: PollSnapshot<Data>): void {
    const host = this.#host;
    if (next.data !== undefined && next.data !== previous.data) {
      // Frozen, the rows and their rank changes stay as the reader saw them.
      if (!this.#spec.freeze?.()?.hold()) {
        this.previousData = this.#dataUrl === this.source.url ? previous.data : undefined;
        const { announcer, localize } = this.#spec;
        const message = this.#spec.dataChanged?.(next.data, this.previousData, localize.locale);
        if (this.previousData === undefined) announcer.note(message);
        else announcer.announce(message);
      }
      this.#dataUrl = this.source.url;
      host.dispatchEvent(new PulseDataEvent(next.data, next.updatedAt));
    }
    if (next.error && next.error !== previous.error)
      host.dispatchEvent(new PulseErrorEvent(next.error, next.data !== undefined));
  }
}
