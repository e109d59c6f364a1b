import { nothing } from 'lit';
import { AsyncDirective } from 'lit/async-directive.js';
import { directive, type PartInfo } from 'lit/directive.js';
import { getHub, type Clock, type PollSnapshot } from '../client/index.ts';
import { formatAge } from './format.ts';
import type { LocalizeController } from './localize.ts';

export interface UpdatedSource {
  readonly snapshot: PollSnapshot;
}

/**
 * "Updated 3 sec. ago", or a visible "Out of date" notice when the data is stale. It refreshes
 * itself once a second on the hub's clock (aligned to whole seconds) without re-rendering its
 * host, which renders only when the data changes.
 */
class UpdatedLineDirective extends AsyncDirective {
  #source: UpdatedSource | undefined;
  #localize: LocalizeController | undefined;
  #timer: unknown;
  #clock: Clock | undefined;

  constructor(partInfo: PartInfo) {
    super(partInfo);
  }

  render(source: UpdatedSource, localize: LocalizeController): string | typeof nothing {
    this.#source = source;
    this.#localize = localize;
    this.#schedule();
    return this.#text();
  }

  protected override disconnected(): void {
    this.#cancel();
  }

  protected override reconnected(): void {
    this.#schedule();
  }

  #text(): string | typeof nothing {
    const { updatedAt, stale, paused } = this.#source!.snapshot;
    const localize = this.#localize!;
    if (updatedAt === undefined) return paused ? localize.term('paused') : nothing;
    const age = formatAge(localize.locale, getHub().clock.now() - updatedAt);
    if (paused) return localize.term('pausedUpdated', age);
    return localize.term(stale ? 'outOfDate' : 'updated', age);
  }

  #schedule(): void {
    if (this.#timer !== undefined || !this.isConnected) return;
    const clock = (this.#clock = getHub().clock);
    this.#timer = clock.setTimeout(() => {
      this.#timer = undefined;
      this.setValue(this.#text());
      this.#schedule();
    }, 1000 - (clock.now() % 1000));
  }

  #cancel(): void {
    if (this.#timer === undefined) return;
    this.#clock?.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

export const updatedLine = directive(UpdatedLineDirective);
