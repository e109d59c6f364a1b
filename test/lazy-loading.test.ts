/**
 * `loading="lazy"` on a long article: elements below the fold make no request until the reader
 * scrolls near them, and stop polling once they have been far away for a minute (on the hub's
 * fake clock); those that poll still share one request per URL per tick. What is near comes from
 * a viewport injected into the hub like the clock (the browser's IntersectionObserver delivers
 * in rendering steps, which a tab in the background of a test run may not get); it tells from
 * the element's box, as the observer's margin does: within one viewport height of the viewport.
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';
import { FAR_AWAY_MS } from '../src/client/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { bodiesByRoute } from './helpers/browser-fixtures.ts';

/** Taller than the viewport and the margin that counts as near. */
const SCREENS = '300vh';
const TICK_MS = 3000;

/** The page's viewport, as the hub's `watchNear` sees it: scrolling tells every element watched. */
class FakeViewport {
  readonly #watched = new Map<Element, (near: boolean) => void>();

  readonly watchNear = (element: Element, onChange: (near: boolean) => void): (() => void) => {
    this.#watched.set(element, onChange);
    onChange(this.#isNear(element));
    return () => this.#watched.delete(element);
  };

  scrollTo(element?: Element): void {
    if (element) element.scrollIntoView();
    else scrollTo(0, 0);
    for (const [watched, onChange] of this.#watched) onChange(this.#isNear(watched));
  }

  #isNear(element: Element): boolean {
    const { top, bottom } = element.getBoundingClientRect();
    return bottom >= -innerHeight && top <= 2 * innerHeight;
  }
}

/** An article: `elements` one screen-full of text apart, the first at the top. */
function article(elements: readonly string[]): HTMLElement {
  const root = fixtureSync<HTMLElement>(html`<div lang="en"></div>`);
  root.innerHTML = elements
    .map((element) => `${element}<p style="block-size: ${SCREENS}">Text of the article.</p>`)
    .join('');
  return root;
}

const src = (site: string, route = 'toppages/v3') => `/live/${route}/?host=${site}`;

describe('loading="lazy"', () => {
  failOnLitWarnings();

  let made: ReturnType<typeof freshHub>;
  let viewport: FakeViewport;
  beforeEach(() => {
    const answer = bodiesByRoute({});
    viewport = new FakeViewport();
    made = freshHub((request) => reply(made.clock, answer(request.url)), { watchNear: viewport.watchNear });
    scrollTo(0, 0);
  });

  afterEach(() => scrollTo(0, 0));

  it('saves every request of the elements the reader never scrolls to', async () => {
    // The same three elements twice: eager on one site, lazy on another, so none shares a URL.
    const elements = (site: string, loading: string) => [
      `<live-counter src="${src(site, 'quickstats/v4')}" ${loading}></live-counter>`,
      `<top-pages src="${src(site)}" ${loading}></top-pages>`,
      `<referrer-bars src="${src(site, 'referrers/v3')}" ${loading}></referrer-bars>`,
    ];
    const eager = elements('eager.example', '');
    const lazy = elements('lazy.example', 'loading="lazy"');
    // One lazy counter at the top, in view: it polls like an eager one.
    const top = `<live-counter src="${src('top.example', 'quickstats/v4')}" loading="lazy"></live-counter>`;
    const root = article([top + eager[0]!, lazy[0]!, eager[1]!, lazy[1]!, eager[2]!, lazy[2]!]);
    await settleElements(root);
    // A reader at the top for a minute: twenty ticks.
    for (let tick = 0; tick < 20; tick++) await made.clock.toNextTick();
    const { server } = made;
    // 21 requests each (at once, then 20 ticks) from the elements that poll; none from the lazy ones screens below.
    expect(server.count('top.example')).to.equal(21);
    expect(server.count('eager.example')).to.equal(3 * 21);
    expect(server.count('lazy.example')).to.equal(0);
    expect(root.querySelector('top-pages[loading=lazy]')!.matches(':state(loading)')).to.equal(true);
  });

  it('asks at once when the reader comes near, and stops a minute after they moved away', async () => {
    const far = `<geo-list src="${src('far.example', 'top_geo/v1')}" max="3" loading="lazy"></geo-list>`;
    const root = article([`<top-pages src="${src('top.example')}"></top-pages>`, far + far]);
    await settleElements(root);
    const { server, clock } = made;
    expect(server.count('far.example')).to.equal(0);

    const [first, second] = root.querySelectorAll('geo-list');
    viewport.scrollTo(second);
    await settleElements(root);
    expect(server.count('far.example')).to.equal(1);
    expect(first!.matches(':state(ready)') && second!.matches(':state(ready)')).to.equal(true);
    // Both are near: one request per tick for their one URL.
    await clock.toNextTick();
    expect(server.count('far.example')).to.equal(2);

    viewport.scrollTo();
    const before = server.count('far.example');
    await clock.advance(FAR_AWAY_MS - TICK_MS);
    const polledWhileAway = server.count('far.example') - before;
    expect(polledWhileAway).to.be.greaterThan(15);
    await clock.advance(TICK_MS);
    const stoppedAt = server.count('far.example');
    for (let tick = 0; tick < 10; tick++) await clock.toNextTick();
    expect(server.count('far.example')).to.equal(stoppedAt);
    // They keep what they showed, and ask again when the reader comes back.
    expect(second!.matches(':state(ready)')).to.equal(true);
    viewport.scrollTo(second);
    await settleElements(root);
    expect(server.count('far.example')).to.equal(stoppedAt + 1);
    expect(second!.matches(':state(ready)')).to.equal(true);
  });
});
