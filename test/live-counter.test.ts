import { expect, fixture, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';
import '../src/locales/de.ts';
import { LiveCounter } from '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settle, settleElements } from './helpers/browser-fakes.ts';
import { quickstats, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour, states, text } from './helpers/browser-states.ts';

/** A counter fed from `people`, which the test changes between ticks. */
async function counter(attributes: Record<string, string> = {}, first = 100) {
  const feed = { people: first };
  const { clock } = freshHub(() => reply(clock, quickstats(feed.people)));
  const el = document.createElement('live-counter');
  el.setAttribute('src', URLS.quickstats);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  await fixture(el);
  await settle();
  const next = async (people: number) => {
    feed.people = people;
    await clock.toNextTick();
    await el.updateComplete;
  };
  const part = (name: string) => el.shadowRoot!.querySelector(`[part=${name}]`);
  return { el, clock, next, part };
}

describe('<live-counter>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'live-counter',
    src: URLS.quickstats,
    ready: quickstats(1234),
    empty: quickstats(3),
    readyText: '1,234',
    emptyAttributes: 'threshold="10"',
    emptyVisible: false,
  });

  it('says, in its language, that the service sent an answer that could not be read (502 upstream_invalid)', async () => {
    const { clock } = freshHub(() =>
      Response.json(
        {
          error: {
            code: 'upstream_invalid',
            message: 'The analytics service answered, but its answer could not be read.',
          },
        },
        { status: 502 },
      ),
    );
    const root = fixtureSync(
      html`<div><live-counter lang="en" src=${URLS.quickstats}></live-counter><live-counter lang="de" src=${URLS.quickstats}></live-counter></div>`,
    );
    await settleElements(root);
    await clock.toNextTick();
    const [english, german] = [...root.querySelectorAll('live-counter')].map((el) =>
      el.shadowRoot!.querySelector('[part=error]')!.textContent!.trim(),
    );
    expect(english).to.equal('The analytics service sent an answer that could not be read (HTTP 502).');
    expect(german).to.equal(
      'Der Analysedienst hat eine Antwort gesendet, die nicht gelesen werden konnte (HTTP 502).',
    );
  });

  it('shows "—" and says "no data" for a figure the answer lacks, never 0', async () => {
    const body = quickstats(12);
    delete (body.data.stats as Record<string, unknown>).read;
    const { clock } = freshHub(() => reply(clock, body));
    const root = fixtureSync(
      html`<div lang="en"><live-counter metric="read" src=${URLS.quickstats}></live-counter></div>`,
    );
    await settleElements(root);
    const el = root.querySelector('live-counter')!;
    expect(states(el)).to.include('ready');
    expect(el.shadowRoot!.querySelector('[part=value]')!.textContent!.replace(/\s+/g, '')).to.equal(
      '—nodata',
    );
    await expect(el).to.be.accessible();
  });

  it('shows the change since the previous update with an arrow and words', async () => {
    const { next, part } = await counter();
    expect(part('delta')).to.equal(null);
    await next(112);
    expect(part('delta')!.textContent!.replace(/\s+/g, ' ').trim()).to.equal(
      '▲ 12 up 12 since the previous update',
    );
    expect(part('delta')!.querySelector('[aria-hidden=true]')!.textContent).to.equal('▲ 12');
    await next(100);
    expect(part('delta')!.textContent).to.contain('down 12 since the previous update');
    expect(part('delta')!.classList.contains('down')).to.equal(true);
  });

  it('draws a sparkline of the last `history` updates with a text alternative', async () => {
    const { next, part } = await counter({ history: '3' }, 10);
    expect(part('sparkline')).to.equal(null);
    for (const people of [20, 5, 30]) await next(people);
    const sparkline = part('sparkline')!;
    expect(sparkline.getAttribute('role')).to.equal('img');
    expect(sparkline.getAttribute('aria-label')).to.equal(
      'Trend over the last 3 updates: from 20 to 30, lowest 5, highest 30.',
    );
    expect(sparkline.querySelector('polyline')!.getAttribute('points')!.split(' ')).to.have.length(3);
  });

  it('hides the sparkline when history is 0', async () => {
    const { next, part } = await counter({ history: '0' });
    await next(120);
    expect(part('sparkline')).to.equal(null);
  });

  it('shows the chosen metric with a matching label, and a label of its own when given', async () => {
    const { el, part } = await counter({ metric: 'read' });
    expect(part('value')!.textContent).to.equal('60');
    expect(part('label')!.textContent).to.equal('People reading now');
    el.label = 'Lecteurs';
    await el.updateComplete;
    expect(part('label')!.textContent).to.equal('Lecteurs');
  });

  it('says so when the data has no metric of that name (a figure we know but the answer lacks is "—")', async () => {
    const { el } = await counter({ metric: 'subscribers' });
    expect(states(el)).to.deep.equal(['empty']);
    expect(text(el)).to.contain('This data has no “subscribers” figure.');
  });

  it('is hidden below the threshold and shown at or above it', async () => {
    const { el, next } = await counter({ threshold: '50' }, 20);
    expect(states(el)).to.deep.equal(['empty']);
    expect(getComputedStyle(el).display).to.equal('none');
    await next(50);
    expect(states(el)).to.deep.equal(['ready']);
    expect(getComputedStyle(el).display).to.equal('block');
  });

  it('applies the threshold to the true count, before rounding', async () => {
    const { el, next, part } = await counter({ threshold: '5', round: '5' }, 3);
    expect(states(el)).to.deep.equal(['empty']);
    expect(getComputedStyle(el).display).to.equal('none');
    await next(5);
    expect(states(el)).to.deep.equal(['ready']);
    await next(7);
    expect(part('value')!.textContent).to.equal('5');
  });

  it('rounds to the step given by round', async () => {
    const { part } = await counter({ round: '10' }, 1234);
    expect(part('value')!.textContent).to.equal('1,230');
  });

  it('formats numbers in the inherited language, when it has a translation', async () => {
    const { clock } = freshHub(() => reply(clock, quickstats(1234567)));
    const root = fixtureSync(html`<div lang="de"><live-counter src=${URLS.quickstats}></live-counter></div>`);
    await settleElements(root);
    const el = root.querySelector('live-counter')!;
    expect(el.shadowRoot!.querySelector('[part=value]')!.textContent).to.equal('1.234.567');
  });

  it('announces only large changes, at most once per 30 s, in a polite live region', async () => {
    const { next, part } = await counter({}, 100);
    const live = part('live')!;
    expect(live.getAttribute('role')).to.equal('status');
    expect(live.textContent).to.equal('');
    await next(103);
    expect(live.textContent).to.equal('');
    await next(150);
    expect(live.textContent).to.equal('People on the site now: 150');
    await next(300);
    expect(live.textContent).to.equal('People on the site now: 150');
    for (let i = 0; i < 10; i++) await next(300 + i * 50);
    expect(live.textContent).to.match(/^People on the site now: \d+$/);
    expect(live.textContent).not.to.equal('People on the site now: 150');
  });

  it('writes its card once, then only the text that changed', async () => {
    const { el, next, part } = await counter({}, 100);
    await next(110);
    const [label, value, sparkline] = [part('label'), part('value'), part('sparkline')];
    const changed: Node[] = [];
    const observer = new MutationObserver((records) =>
      changed.push(...records.map((record) => record.target)),
    );
    observer.observe(el.shadowRoot!, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
    await next(125);
    observer.takeRecords();
    observer.disconnect();
    expect([part('label'), part('value'), part('sparkline')]).to.deep.equal([label, value, sparkline]);
    expect(part('value')!.textContent).to.equal('125');
    expect(changed.some((node) => label!.contains(node))).to.equal(false);
    expect(changed.some((node) => value!.contains(node))).to.equal(true);
  });

  it('keeps the properties a page set before the element was defined', async () => {
    const { clock } = freshHub(() => reply(clock, quickstats(100)));
    const el = document.createElement('early-counter') as LiveCounter;
    el.src = URLS.quickstats;
    el.metric = 'read';
    customElements.define('early-counter', class extends LiveCounter {});
    await fixture(el);
    await settle();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=label]')!.textContent).to.equal('People reading now');
    expect(el.shadowRoot!.querySelector('[part=value]')!.textContent).to.equal('60');
  });

  it('follows its attributes as typed properties and reflects theme and no-heading', async () => {
    const { el, part } = await counter({ history: '0', 'no-heading': '' });
    expect([el.history, el.noHeading]).to.deep.equal([0, true]);
    expect(el.getAttribute('theme')).to.equal('auto');
    el.theme = 'dark';
    el.noHeading = false;
    await el.updateComplete;
    expect(el.getAttribute('theme')).to.equal('dark');
    expect(el.hasAttribute('no-heading')).to.equal(false);
    el.setAttribute('label', 'Readers');
    await el.updateComplete;
    expect(part('label')!.textContent).to.equal('Readers');
  });

  it('is registered through define(), which warns instead of throwing when the name is taken', () => {
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (message: string) => warnings.push(message);
    try {
      class Impostor extends LiveCounter {}
      Impostor.define('live-counter');
      LiveCounter.define('live-counter');
    } finally {
      console.warn = warn;
    }
    expect(customElements.get('live-counter')).to.equal(LiveCounter);
    expect(warnings).to.deep.equal([
      'pulse-widgets: <live-counter> is already defined on this page; keeping the first definition.',
    ]);
  });
});
