import { expect, fixture, html } from '@open-wc/testing';
import * as classes from '../src/classes.ts';
import { LiveCounter, type PulseDataEvent, PulseElement, TopPages } from '../src/classes.ts';
import type { Changes } from '../src/internal/lean-element.ts';
import { failOnLitWarnings, freshHub, reply, settle } from './helpers/browser-fakes.ts';
import { page, quickstats, toppages, URLS } from './helpers/browser-fixtures.ts';
import { text } from './helpers/browser-states.ts';

/** The element classes pulse-widgets/classes exports. */
const elementClasses = Object.entries(classes as Record<string, unknown>).filter(
  (entry): entry is [string, CustomElementConstructor] =>
    typeof entry[1] === 'function' && entry[1].prototype instanceof HTMLElement && entry[1] !== PulseElement,
);

describe('pulse-widgets/classes', () => {
  failOnLitWarnings();

  it('exports every element class and registers none of them', () => {
    expect(elementClasses.map(([name]) => name)).to.include.members([
      'LiveCounter',
      'TopPages',
      'GeoList',
      'ReferrerBars',
      'HeadlineTests',
    ]);
    for (const [name, element] of elementClasses)
      expect(customElements.getName(element), name).to.equal(null);
    for (const tag of ['live-counter', 'top-pages', 'geo-list', 'referrer-bars', 'headline-tests'])
      expect(customElements.get(tag), tag).to.equal(undefined);
  });

  it('lets an app register a subclass under its own name', async () => {
    customElements.define('my-counter', class extends LiveCounter {});
    const { clock } = freshHub(() => reply(clock, quickstats(1234)));
    const received: unknown[] = [];
    const el = await fixture<LiveCounter>(
      html`<my-counter src=${URLS.quickstats} @pulse-data=${(event: PulseDataEvent) => received.push(event.data)}></my-counter>`,
    );
    await settle();
    await el.updateComplete;
    expect(el).to.be.instanceOf(LiveCounter);
    expect(text(el)).to.contain('1,234');
    expect(received).to.have.length(1);
    expect(customElements.get('live-counter')).to.equal(undefined);
    await expect(el).to.be.accessible();
  });

  it('registers a subclass through the inherited define()', async () => {
    class TeamPages extends TopPages {}
    TeamPages.define('team-pages');
    const { clock } = freshHub(() => reply(clock, toppages(page('example.com/story', 7))));
    const el = await fixture<TopPages>(html`<team-pages src=${URLS.toppages}></team-pages>`);
    await settle();
    await el.updateComplete;
    expect(customElements.get('team-pages')).to.equal(TeamPages);
    expect(text(el)).to.contain('Story example.com/story');
    expect(customElements.get('top-pages')).to.equal(undefined);
  });

  it("keeps a card's protected lifecycle for a subclass, as Lit's", async () => {
    const log: string[] = [];
    class TaggedPages extends TopPages {
      static override properties = { tags: { type: Array }, note: { state: true } };
      tags: string[] | null = [];
      note = '';

      protected override willUpdate(changed: Changes): void {
        super.willUpdate(changed);
        // Set in willUpdate: part of this update, not the cause of another.
        if (changed.has('tags')) this.note = `tags ${JSON.stringify(this.tags)}`;
        // Updates that controllers ask for (the clock, the live region) change no property.
        if (changed.size > 0)
          log.push(
            `willUpdate ${[...changed.keys()]
              .filter((key) => key !== 'note')
              .sort()
              .join(' ')}`,
          );
      }

      protected override render() {
        return html`${super.render()}<p part="note">${this.note}</p>`;
      }

      protected override updated(changed: Changes): void {
        const note = this.renderRoot.querySelector('[part=note]')?.textContent;
        if (changed.size > 0)
          log.push(
            `updated ${changed.has('note') ? `note was "${String(changed.get('note'))}"` : ''}: ${note}`,
          );
      }
    }
    TaggedPages.define('tagged-pages');
    const { clock } = freshHub(() => reply(clock, toppages(page('example.com/story', 7))));
    const el = await fixture<TaggedPages>(
      html`<tagged-pages src=${URLS.toppages} tags='["a"]'></tagged-pages>`,
    );
    await el.updateComplete;
    expect(el.tags).to.deep.equal(['a']);
    expect(log).to.deep.equal([
      'willUpdate articlesOnly columns hideNumbers label loading max noHeading src tags theme tools',
      'updated note was "undefined": tags ["a"]',
    ]);
    log.length = 0;
    el.setAttribute('tags', 'not json');
    await el.updateComplete;
    expect(el.tags).to.equal(null);
    expect(log).to.deep.equal(['willUpdate tags', 'updated note was "tags ["a"]": tags null']);
    expect(el.hasAttribute('note'), 'a state has no attribute').to.equal(false);
    await settle();
    await el.updateComplete;
    expect(text(el)).to.contain('Story example.com/story');
  });
});
