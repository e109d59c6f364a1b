/**
 * The element modules alone, as a public page loads them (`pulse-widgets/top-pages`,
 * `dist/cdn/top-pages.js`): none of the newsroom features, and nothing broken for their absence.
 * test/network-view.test.ts covers the features themselves, with the full bundle.
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/elements/live-counter/live-counter.ts';
import '../src/elements/top-pages/top-pages.ts';
import '../src/elements/geo-list/geo-list.ts';
import '../src/elements/referrer-bars/referrer-bars.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { bodiesByRoute, URLS } from './helpers/browser-fixtures.ts';
import { states, text } from './helpers/browser-states.ts';

async function mount(markup: string): Promise<HTMLElement[]> {
  const root = fixtureSync(html`<div lang="en"></div>`);
  root.innerHTML = markup;
  await settleElements(root);
  return [...root.children] as HTMLElement[];
}

describe('the element modules without pulse-widgets/newsroom', () => {
  failOnLitWarnings();

  beforeEach(() => {
    const answer = bodiesByRoute({});
    const { clock } = freshHub((request) => reply(clock, answer(request.url)));
  });

  it('show their data with no freeze control, drill-down or site column', async () => {
    const elements = await mount(`<top-pages src="${URLS.toppages}"></top-pages><geo-list src="${URLS.geo}"></geo-list><referrer-bars src="${URLS.referrers}"></referrer-bars>`);
    for (const el of elements) {
      expect(states(el)).to.include('ready');
      expect(el.shadowRoot!.querySelector('[part=freeze], [part=expand], [part=site]'), el.localName).to.equal(null);
      await expect(el).to.be.accessible();
    }
  });

  it('take one address in src: several are the error that says so', async () => {
    const [el] = await mount(`<live-counter src="${URLS.quickstats} ${URLS.quickstats.replace('example.com', 'news.example.org')}"></live-counter>`);
    expect(states(el!)).to.include('error');
    expect(text(el!)).to.contain('src takes one address');
  });

  it('show no detail columns, and tell the developer why', async () => {
    const warned: string[] = [];
    const original = console.warn;
    console.warn = (message: string) => warned.push(message);
    try {
      const [el] = await mount(`<top-pages src="${URLS.toppages}" columns="sections authors"></top-pages>`);
      expect(el!.shadowRoot!.querySelector('[part~=column]')).to.equal(null);
      expect(text(el!)).to.contain('Story example.com/a1');
    } finally {
      console.warn = original;
    }
    expect(warned).to.deep.equal(['pulse-widgets: <top-pages columns> needs pulse-widgets/newsroom']);
  });
});
