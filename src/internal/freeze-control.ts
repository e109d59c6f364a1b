import { css, type Styles } from './style-sheet.ts';
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { Announcer } from './announcer.ts';
import type { LocalizeController } from './localize.ts';
import { buttonStyles } from './button-styles.ts';

/** What a list lends its freeze control. */
export interface FreezeHost<Data> {
  readonly localize: LocalizeController;
  readonly announcer: Announcer;
  /** The latest data: what freezing holds on screen. */
  latest(): Data | undefined;
  /** Unfrozen with updates waiting: what changes next is measured from `held`, the rows the reader saw. */
  resume(held: Data): void;
  requestUpdate(): void;
}

/**
 * The "Freeze" toggle of a list (a newsroom feature, src/newsroom.ts): while frozen the rows on
 * screen stay as they are, polling goes on and the control says how many updates are waiting;
 * unfreezing shows the latest.
 */
export class FreezeControl<Data> {
  /** The data on screen while frozen. */
  held: Data | undefined;
  readonly #host: FreezeHost<Data>;
  #waiting = 0;

  constructor(host: FreezeHost<Data>) {
    this.#host = host;
  }

  /** New data arrived: while frozen it only adds to the updates waiting, which is said. Returns whether frozen. */
  hold(): boolean {
    if (this.held === undefined) return false;
    this.#waiting++;
    this.#host.announcer.announce(this.#waitingText());
    return true;
  }

  /** Another source: what was held belongs to the old one. */
  release(): void {
    this.held = undefined;
    this.#waiting = 0;
  }

  render(): TemplateResult {
    const frozen = this.held !== undefined;
    return html`<div part="freeze" class="freeze">
      <button part="freeze-button" type="button" aria-pressed=${frozen ? 'true' : 'false'} @click=${this.#toggle}>${this.#host.localize.term('freeze')}</button>
      ${frozen ? html`<span part="waiting" class="waiting">${this.#waitingText()}</span>` : nothing}
    </div>`;
  }

  #waitingText(): string {
    const { localize } = this.#host;
    return localize.term('freezeWaiting', localize.count(this.#waiting));
  }

  readonly #toggle = (): void => {
    const host = this.#host;
    const held = this.held;
    if (held === undefined) {
      this.held = host.latest();
    } else {
      if (this.#waiting > 0) host.resume(held);
      this.held = undefined;
    }
    host.announcer.announce(host.localize.term(held === undefined ? 'freezeOn' : 'freezeOff'), {
      urgent: true,
    });
    this.#waiting = 0;
    host.requestUpdate();
  };
}

export const freezeStyles: Styles = [
  buttonStyles,
  css`
  .freeze {
    display: flex;
    flex-wrap: wrap;
    align-items: baseline;
    gap: calc(var(--_space) / 2);
    margin-block-end: calc(var(--_space) / 2);
    font-size: 0.8em;
  }

  button[aria-pressed='true'] {
    border-color: var(--_accent);
    background: var(--_accent);
    color: var(--_surface);
  }

  .waiting {
    color: var(--_muted);
  }
`,
];
