import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import { getHub, type Clock, type PollSnapshot } from '../client/index.ts';
import { formatAge } from './format.ts';
import type { LocalizeController } from './localize.ts';

/** An element whose `[part=updated]` the line is written into. */
type UpdatedLineHost = ReactiveControllerHost & {
  readonly renderRoot: ParentNode;
  readonly isConnected: boolean;
};

/**
 * "Updated 3 sec. ago", or a visible "Out of date" notice when the data is stale, written into
 * the host's `[part=updated]` element, which the host renders empty and leaves to this
 * controller. It writes after each render of the host and once a second on the hub's clock
 * (aligned to whole seconds), so the age moves without re-rendering the host, which renders only
 * when the data changes.
 */
export class UpdatedLine implements ReactiveController {
  readonly #host: UpdatedLineHost;
  readonly #snapshot: () => PollSnapshot;
  readonly #localize: LocalizeController;
  #timer: unknown;
  #clock: Clock | undefined;

  constructor(host: UpdatedLineHost, snapshot: () => PollSnapshot, localize: LocalizeController) {
    this.#host = host;
    this.#snapshot = snapshot;
    this.#localize = localize;
    host.addController(this);
  }

  hostConnected(): void {
    this.#schedule();
  }

  hostUpdated(): void {
    this.#write();
    this.#schedule();
  }

  hostDisconnected(): void {
    if (this.#timer === undefined) return;
    this.#clock?.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #text(): string {
    const { updatedAt, stale, paused } = this.#snapshot();
    const localize = this.#localize;
    if (updatedAt === undefined) return paused ? localize.term('paused') : '';
    const age = formatAge(localize.locale, getHub().clock.now() - updatedAt);
    if (paused) return localize.term('pausedUpdated', age);
    return localize.term(stale ? 'outOfDate' : 'updated', age);
  }

  #write(): void {
    const line = this.#host.renderRoot.querySelector('[part=updated]');
    const text = this.#text();
    if (line && line.textContent !== text) line.textContent = text;
  }

  #schedule(): void {
    if (this.#timer !== undefined || !this.#host.isConnected) return;
    const clock = (this.#clock = getHub().clock);
    this.#timer = clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#write();
        this.#schedule();
      },
      1000 - (clock.now() % 1000),
    );
  }
}
