/**
 * The polite live region on a fake clock: at most one message per quiet time (30 s), the latest
 * state said when it ends, nothing said for a change undone in the meantime.
 */
import { expect, fixture } from '@open-wc/testing';
import '../src/index.ts';
import type { PulseElement } from '../src/index.ts';
import { Announcer } from '../src/internal/announcer.ts';
import { failOnLitWarnings, freshHub, reply, settle } from './helpers/browser-fakes.ts';
import { page, quickstats, toppages, URLS } from './helpers/browser-fixtures.ts';

/** A bare controller host that counts the renders the announcer asks for. */
function host() {
  const counts = { updates: 0 };
  return {
    counts,
    addController() {},
    removeController() {},
    requestUpdate: () => counts.updates++,
    updateComplete: Promise.resolve(true),
  };
}

describe('Announcer', () => {
  it('says a change at once, and a change during the quiet time when it ends', async () => {
    const { clock } = freshHub(() => new Response('{}'));
    const { counts, ...stub } = host();
    const announcer = new Announcer({ ...stub, requestUpdate: () => counts.updates++ }, 30_000);
    announcer.note('A');
    expect(announcer.text).to.equal('');
    announcer.announce('B');
    expect(announcer.text).to.equal('B');
    await clock.advance(1_000);
    announcer.announce('C');
    announcer.announce(undefined);
    expect(announcer.text).to.equal('B');
    await clock.advance(28_999);
    expect(announcer.text).to.equal('B');
    await clock.advance(1);
    expect(announcer.text).to.equal('C');
    expect(counts.updates).to.equal(2);
  });

  it('says nothing for a change undone before the quiet time ends', async () => {
    const { clock } = freshHub(() => new Response('{}'));
    const { counts, ...stub } = host();
    const announcer = new Announcer({ ...stub, requestUpdate: () => counts.updates++ }, 30_000);
    announcer.announce('B');
    announcer.announce('C');
    announcer.announce('B');
    await clock.advance(60_000);
    expect(announcer.text).to.equal('B');
    expect(counts.updates).to.equal(1);
  });

  it('says urgent news at once, inside the quiet time, replacing what waited; the quiet time starts again from it', async () => {
    const { clock } = freshHub(() => new Response('{}'));
    const { counts, ...stub } = host();
    const announcer = new Announcer({ ...stub, requestUpdate: () => counts.updates++ }, 30_000);
    announcer.announce('B');
    await clock.advance(1_000);
    announcer.announce('C');
    announcer.announce('Frozen', { urgent: true });
    expect(announcer.text).to.equal('Frozen');
    await clock.advance(60_000);
    expect(announcer.text, 'what waited before the urgent news is not said after it').to.equal('Frozen');
    announcer.announce('D');
    expect(announcer.text).to.equal('D');
    await clock.advance(1_000);
    announcer.announce('E');
    await clock.advance(28_999);
    expect(announcer.text).to.equal('D');
    await clock.advance(1);
    expect(announcer.text).to.equal('E');
  });

  it('drops what waits when its element leaves the page', async () => {
    const { clock } = freshHub(() => new Response('{}'));
    const stub = host();
    const announcer = new Announcer(stub, 30_000);
    announcer.announce('B');
    announcer.announce('C');
    announcer.hostDisconnected();
    await clock.advance(60_000);
    expect(announcer.text).to.equal('B');
  });
});

describe('announcements of the elements', () => {
  failOnLitWarnings();

  it('<live-counter>: a number reached during the quiet time and kept is said when it ends', async () => {
    const feed = { people: 100 };
    const { clock } = freshHub(() => reply(clock, quickstats(feed.people)));
    const el = await fixture<PulseElement<unknown>>(
      Object.assign(document.createElement('live-counter'), { src: URLS.quickstats }),
    );
    await settle();
    const live = () => el.shadowRoot!.querySelector('[part=live]')!.textContent;
    const tick = async (people: number) => {
      feed.people = people;
      await clock.toNextTick();
      await el.updateComplete;
    };
    await tick(150);
    expect(live()).to.equal('People on the site now: 150');
    await tick(300);
    // Unchanged from here on: no new data, nothing for the element to say, yet 300 must be heard.
    for (let i = 0; i < 8; i++) await tick(300);
    expect(live()).to.equal('People on the site now: 150');
    await clock.advance(30_000);
    await el.updateComplete;
    expect(live()).to.equal('People on the site now: 300');
  });

  it('<live-counter>: a jump undone during the quiet time is not said', async () => {
    const feed = { people: 100 };
    const { clock } = freshHub(() => reply(clock, quickstats(feed.people)));
    const el = await fixture<PulseElement<unknown>>(
      Object.assign(document.createElement('live-counter'), { src: URLS.quickstats }),
    );
    await settle();
    const live = () => el.shadowRoot!.querySelector('[part=live]')!.textContent;
    const tick = async (people: number) => {
      feed.people = people;
      await clock.toNextTick();
      await el.updateComplete;
    };
    await tick(150);
    await tick(300);
    await tick(155);
    await clock.advance(60_000);
    await el.updateComplete;
    expect(live()).to.equal('People on the site now: 150');
  });

  it('<top-pages>: a new leader that took over during the quiet time is said when it ends', async () => {
    const feed = {
      body: toppages(page('example.com/a', 30), page('example.com/b', 20), page('example.com/c', 10)),
    };
    const { clock } = freshHub(() => reply(clock, feed.body));
    const el = await fixture<PulseElement<unknown>>(
      Object.assign(document.createElement('top-pages'), { src: URLS.toppages }),
    );
    await settle();
    const live = () => el.shadowRoot!.querySelector('[part=live]')!.textContent;
    const tick = async (...order: [string, number][]) => {
      feed.body = toppages(...order.map(([path, people]) => page(`example.com/${path}`, people)));
      await clock.toNextTick();
      await el.updateComplete;
    };
    expect(live()).to.equal('');
    await tick(['b', 31], ['a', 30], ['c', 10]);
    expect(live()).to.equal('Top page now: Story example.com/b');
    await tick(['c', 40], ['b', 31], ['a', 30]);
    await tick(['c', 41], ['b', 31], ['a', 30]);
    expect(live()).to.equal('Top page now: Story example.com/b');
    await clock.advance(30_000);
    await el.updateComplete;
    expect(live()).to.equal('Top page now: Story example.com/c');
  });
});
