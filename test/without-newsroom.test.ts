/**
 * The element modules alone, as a public page loads them (`pulse-widgets/top-pages`,
 * `dist/cdn/top-pages.js`): none of the newsroom features, and nothing broken for their absence.
 * Then the features imported after the elements are defined: every element made from then on has
 * them, with their styles. test/network-view.test.ts covers the features themselves.
 */
import { expect, fixtureSync, html, waitUntil } from '@open-wc/testing';
import '../src/elements/live-counter/live-counter.ts';
import '../src/elements/top-pages/top-pages.ts';
import '../src/elements/geo-list/geo-list.ts';
import '../src/elements/referrer-bars/referrer-bars.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { historyDay } from './helpers/history-fixtures.ts';
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
    const elements = await mount(
      `<top-pages src="${URLS.toppages}"></top-pages><geo-list src="${URLS.geo}"></geo-list><referrer-bars src="${URLS.referrers}"></referrer-bars>`,
    );
    for (const el of elements) {
      expect(states(el)).to.include('ready');
      expect(
        el.shadowRoot!.querySelector('[part=freeze], [part=expand], [part=site]'),
        el.localName,
      ).to.equal(null);
      await expect(el).to.be.accessible();
    }
  });

  it('take one address in src: several are the error that says so', async () => {
    const [el] = await mount(
      `<live-counter src="${URLS.quickstats} ${URLS.quickstats.replace('example.com', 'news.example.org')}"></live-counter>`,
    );
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

describe('pulse-widgets/newsroom and compare="typical" imported after the elements are defined', () => {
  failOnLitWarnings();

  before(async () => {
    expect(customElements.get('top-pages')).to.not.equal(undefined);
    await import('../src/newsroom.ts');
    await import('../src/elements/live-counter/live-counter-typical.ts');
  });

  beforeEach(() => {
    const answer = bodiesByRoute({});
    // news.example.org fails: the network view's partial note shows.
    const { clock } = freshHub((request) => {
      if (request.url.includes('/history/v1/')) return reply(clock, historyDay({ value: () => 10 }));
      if (request.url.includes('news.example.org'))
        return reply(clock, { error: { code: 'upstream_error', message: 'down' } }, { status: 503 });
      return reply(clock, answer(request.url));
    });
  });

  it('give every element made since then each feature, with its styles and its words', async () => {
    const second = (url: string) => `${url} ${url.replace('example.com', 'news.example.org')}`;
    const [pages, geo] = await mount(
      `<top-pages src="${second(URLS.toppages)}" tools="freeze drill-down" columns="sections"></top-pages><geo-list src="${URLS.geo}" tools="freeze"></geo-list>`,
    );
    const style = (el: HTMLElement, selector: string) =>
      getComputedStyle(el.shadowRoot!.querySelector(selector)!);
    expect(pages!.matches(':state(partial)')).to.equal(true);
    expect(text(pages!)).to.contain('Freeze');
    expect(style(pages!, '[part=freeze]').display).to.equal('flex');
    expect(style(geo!, '[part=freeze]').display).to.equal('flex');
    expect(style(pages!, '[part=expand]').minInlineSize).to.equal('24px');
    expect(style(pages!, '[part=site]').flexShrink).to.equal('0');
    expect(style(pages!, '[part~=column]').overflowWrap).to.equal('anywhere');
    expect(style(pages!, '[part=partial]').fontWeight).to.equal('600');
    await expect(pages).to.be.accessible();
  });

  it('give every counter made since then compare="typical"', async () => {
    const [counter] = await mount(`<live-counter src="${URLS.quickstats}" compare="typical"></live-counter>`);
    await waitUntil(() => counter!.shadowRoot!.querySelector('[part=compare]'), 'the comparison');
  });
});
