import { css } from './style-sheet.ts';
import type { ReactiveControllerHost } from 'lit';
import { MultiPollController, type FailingSource, type Merge, type SnapshotChange } from '../client/index.ts';
import type { Announcer } from './announcer.ts';
import { PulseErrorEvent } from './events.ts';
import { formatList } from './format.ts';
import type { LocalizeController } from './localize.ts';
import type { DataSource } from './frame.ts';

/** What an element lends the source of its several sites. */
export interface SitesHost {
  readonly element: ReactiveControllerHost & HTMLElement;
  readonly localize: LocalizeController;
  readonly announcer: Announcer;
}

/**
 * The source of an element showing several sites in one (the network view, a newsroom feature,
 * src/newsroom.ts): one address per site on the page's hub, their bodies merged. One site failing
 * while others have data makes the merge partial rather than broken: its last data stays in, its
 * error is dispatched with the site named, the reader is told at once, and a note names it.
 */
export class SitesSource<Data> implements DataSource<Data> {
  readonly #sites: MultiPollController<Data>;
  readonly #host: SitesHost;
  /** The failing sites the element has told of. */
  #failing: readonly FailingSource[] = [];

  constructor(host: SitesHost, onChange: SnapshotChange<Data>, merge: Merge<Data>) {
    this.#host = host;
    this.#sites = new MultiPollController<Data>(
      host.element,
      (next, previous) => {
        onChange(next, previous);
        this.#tell();
      },
      merge,
    );
  }

  get url(): string | undefined {
    return this.#sites.url;
  }

  set url(url: string | undefined) {
    this.#sites.url = url;
  }

  get active(): boolean {
    return this.#sites.active;
  }

  set active(active: boolean) {
    this.#sites.active = active;
  }

  get snapshot() {
    return this.#sites.snapshot;
  }

  get partial(): boolean {
    return this.#failing.length > 0;
  }

  note(): string | undefined {
    return this.partial ? this.#text(this.#failing) : undefined;
  }

  #tell(): void {
    const failing = this.#sites.failing;
    if (failing === this.#failing) return;
    const { element, announcer } = this.#host;
    for (const { site, error } of failing) {
      if (!this.#failing.some((known) => known.site === site))
        element.dispatchEvent(new PulseErrorEvent({ ...error, message: `${site}: ${error.message}` }, true));
    }
    if (failing.length > 0) announcer.announce(this.#text(failing), { urgent: true });
    this.#failing = failing;
  }

  #text(failing: readonly FailingSource[]): string {
    const { localize } = this.#host;
    return localize.term(
      'partial',
      formatList(
        localize.locale,
        failing.map(({ site }) => site),
      ),
    );
  }
}

/** The partial note: the look of the out-of-date notice. */
export const partialStyles = css`
  .partial {
    margin: calc(var(--_space) / 2) 0 0;
    padding: 0.125em 0.5em;
    border-radius: calc(var(--_radius) / 2);
    background: var(--_warning-surface);
    color: var(--_warning);
    font-size: 0.8em;
    font-weight: 600;
  }
`;
