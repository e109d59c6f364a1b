import { expect, fixture, waitUntil } from '@open-wc/testing';
import '../src/index.ts';
import { freshHub, reply, settle } from './helpers/browser-fakes.ts';
import { quickstats, URLS } from './helpers/browser-fixtures.ts';
import { historyDay } from './helpers/history-fixtures.ts';

const words = (node: Element) => (node.textContent ?? '').replace(/\s+/g, ' ').trim();

/** A counter answered 1,180 people now, and `history` for `/history/v1/`. */
async function counter(
  attributes: Record<string, string>,
  history: () => Response | undefined = () => undefined,
) {
  const feed = { people: 1180 };
  const made = freshHub((request) =>
    request.url.includes('/history/v1/')
      ? (history() ?? reply(made.clock, historyDay({ value: (minute) => 800 + (minute % 7) })))
      : reply(made.clock, quickstats(feed.people)),
  );
  const el = document.createElement('live-counter');
  el.setAttribute('src', URLS.quickstats);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  await fixture(el);
  await settle();
  await el.updateComplete;
  const part = (name: string) => el.shadowRoot!.querySelector(`[part=${name}]`);
  return { el, server: made.server, clock: made.clock, part, feed };
}

describe('<live-counter compare="typical">', () => {
  it('says beside the number how it compares with a typical day at this time, in words and not by colour alone', async () => {
    const { el, part } = await counter({ compare: 'typical' });
    await waitUntil(() => part('compare'), 'the comparison');
    expect(words(part('compare')!)).to.equal('▲ 18% above typical for this time of day');
    expect(part('compare')!.querySelector('[aria-hidden=true]')!.textContent).to.equal('▲');
    expect(part('compare')!.classList.contains('up')).to.equal(true);
    await expect(el).to.be.accessible();
  });

  it('starts the sparkline from the day so far instead of empty', async () => {
    const { part } = await counter({ compare: 'typical' });
    await waitUntil(() => part('compare'), 'the history');
    const sparkline = part('sparkline')!;
    // 721 minutes since midnight plus the live figure.
    expect(sparkline.querySelector('polyline')!.getAttribute('points')!.split(' ')).to.have.length(722);
    expect(sparkline.getAttribute('aria-label')).to.equal(
      'Today since midnight: from 800 to 1,180 now, lowest 800, highest 1,180.',
    );
  });

  it('asks for no history at all without compare', async () => {
    const { server, clock, part } = await counter({});
    await clock.advance(65_000);
    expect(server.count('/history/v1/')).to.equal(0);
    expect(part('compare')).to.equal(null);
  });

  it('keeps its own sparkline and says nothing of a typical day when history cannot be had', async () => {
    const { el, server, part, clock, feed } = await counter(
      { compare: 'typical' },
      () => new Response(null, { status: 404 }),
    );
    feed.people = 1200;
    await clock.toNextTick();
    await el.updateComplete;
    expect(server.count('/history/v1/')).to.equal(1);
    expect(part('compare')).to.equal(null);
    expect(part('sparkline')!.getAttribute('aria-label')).to.match(/^Trend over the last 2 updates/);
    await expect(el).to.be.accessible();
  });
});
