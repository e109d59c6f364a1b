import { expect, fixture, fixtureSync, html } from '@open-wc/testing';
import { getHub, replaceEqualDeep, type PollSnapshot } from '../src/client/index.ts';
import '../src/index.ts';
import type { LiveCounter, PulseDataEvent, PulseErrorEvent } from '../src/index.ts';
import {
  deferred,
  failOnLitWarnings,
  freshHub,
  reply,
  setOnline,
  setPageHidden,
  settle,
  settleElements,
} from './helpers/browser-fakes.ts';
import { bodiesByRoute, quickstats, URLS } from './helpers/browser-fixtures.ts';

const QUICKSTATS = new URL(URLS.quickstats, document.baseURI).href;

/** Subscribes to `url` and records every snapshot delivered. */
function watch(url = QUICKSTATS): { snapshots: PollSnapshot[]; last: () => PollSnapshot; stop: () => void } {
  const snapshots: PollSnapshot[] = [];
  const stop = getHub().subscribe(url, (snapshot) => snapshots.push(snapshot));
  return { snapshots, last: () => getHub().snapshot(url), stop };
}

/** Counts the renders of an element. */
function countRenders(el: LiveCounter): () => number {
  let renders = 0;
  el.addController({ hostUpdated: () => renders++ });
  return () => renders;
}

describe('the poll hub', () => {
  failOnLitWarnings();

  afterEach(() => {
    setPageHidden(false);
    setOnline(true);
  });

  it('is one per page, on a global symbol shared by every copy of the bundle', () => {
    expect(getHub()).to.equal((globalThis as Record<symbol, unknown>)[Symbol.for('pulse-widgets.hub')]);
  });

  it('fetches a new URL at once, then at wall-clock multiples of the interval', async () => {
    const times: number[] = [];
    const { clock, server } = freshHub(() => {
      times.push(clock.now());
      return reply(clock, quickstats(5));
    });
    const { stop } = watch();
    await settle();
    expect(server.count()).to.equal(1);
    await clock.advance(2499);
    expect(server.count()).to.equal(1);
    await clock.advance(1);
    expect(server.count()).to.equal(2);
    await clock.advance(6000);
    expect(times.slice(1).map((time) => time % 3000)).to.deep.equal([0, 0, 0]);
    stop();
  });

  it('clamps the interval to at least 3 s and aligns to the one configured', async () => {
    const { clock, server } = freshHub(() => reply(clock, quickstats(5)), { interval: 1000 });
    expect(getHub().interval).to.equal(3000);
    getHub().configure({ interval: 5000 });
    const { stop } = watch();
    await clock.advance(4499);
    expect(server.count()).to.equal(1);
    await clock.advance(1);
    expect(server.count()).to.equal(2);
    expect(clock.now() % 5000).to.equal(0);
    stop();
  });

  it('makes one request per URL per tick: 12 elements on 4 URLs make 4 requests', async () => {
    const body = bodiesByRoute({});
    const { clock, server } = freshHub((request) => reply(clock, body(request.url)));
    const root = fixtureSync(html`<div>
      ${[1, 2, 3].map(
        () => html`<live-counter src=${URLS.quickstats}></live-counter>
        <top-pages src=${URLS.toppages}></top-pages>
        <geo-list src=${URLS.geo}></geo-list>
        <referrer-bars src=${URLS.referrers}></referrer-bars>`,
      )}
    </div>`);
    await settleElements(root);
    expect(server.count()).to.equal(4);
    await clock.toNextTick();
    expect(server.count()).to.equal(8);
    await clock.toNextTick();
    expect(server.count()).to.equal(12);
    expect(new Set(server.requests.map((request) => request.url)).size).to.equal(4);
  });

  it('pauses while the page is hidden and refreshes at once when it is shown', async () => {
    const { clock, server } = freshHub(() => reply(clock, quickstats(5)));
    const { last, stop } = watch();
    await settle();
    setPageHidden(true);
    expect(last().paused).to.equal(true);
    await clock.advance(30_000);
    expect(server.count()).to.equal(1);
    setPageHidden(false);
    await settle();
    expect(server.count()).to.equal(2);
    expect(last().paused).to.equal(false);
    await clock.toNextTick();
    expect(server.count()).to.equal(3);
    stop();
  });

  it('pauses while offline and refreshes when back online', async () => {
    const { clock, server } = freshHub(() => reply(clock, quickstats(5)));
    const { last, stop } = watch();
    await settle();
    setOnline(false);
    await clock.advance(30_000);
    expect(server.count()).to.equal(1);
    expect(last().paused).to.equal(true);
    setOnline(true);
    await settle();
    expect(server.count()).to.equal(2);
    stop();
  });

  it('backs off with jitter after failures, keeps the data and recovers on success', async () => {
    const times: number[] = [];
    let failing = false;
    const { clock, server } = freshHub(() => {
      times.push(clock.now());
      return failing ? new Response('oops', { status: 500 }) : reply(clock, quickstats(5));
    });
    const { last, stop } = watch();
    await settle();
    const good = last().data;
    failing = true;
    await clock.toNextTick();
    expect(last().error?.message).to.equal('The data source is unavailable (HTTP 500).');
    expect(last().data).to.equal(good);
    expect(last().stale).to.equal(true);
    await clock.advance(30_000);
    // Jitter at its midpoint: waits of 2.25 s, 4.5 s, 9 s after failures 1 to 3, each rounded up to a tick.
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    expect(gaps).to.deep.equal([2500, 3000, 6000, 9000]);
    expect(server.count()).to.be.lessThan(8);
    failing = false;
    await clock.advance(20_000);
    expect(last().error).to.equal(undefined);
    expect(last().stale).to.equal(false);
    stop();
  });

  it('honours Retry-After', async () => {
    let calls = 0;
    const { clock, server } = freshHub(() =>
      ++calls === 2
        ? new Response(null, { status: 429, headers: { 'Retry-After': '20' } })
        : reply(clock, quickstats(5)),
    );
    const { last, stop } = watch();
    await settle();
    await clock.toNextTick();
    expect(last().error?.status).to.equal(429);
    await clock.advance(19_000);
    expect(server.count()).to.equal(2);
    await clock.advance(3000);
    expect(server.count()).to.equal(3);
    expect(last().error).to.equal(undefined);
    stop();
  });

  it('aborts the request in flight when the last subscriber leaves', async () => {
    const held = deferred<Response>();
    const { server } = freshHub(() => held.promise);
    const first = watch();
    const second = watch();
    await Promise.resolve();
    const [request] = server.requests;
    first.stop();
    expect(request!.signal.aborted).to.equal(false);
    second.stop();
    expect(request!.signal.aborted).to.equal(true);
  });

  it('lets the browser cache revalidate, with no header of its own (no CORS preflight), and changes nothing on a revalidated answer', async () => {
    let calls = 0;
    // What fetch returns when the browser's cache got a 304: the stored answer, same ETag. The
    // body here would not validate, so the test fails if the hub read it again.
    const { clock, server } = freshHub(() =>
      ++calls === 1 ? reply(clock, quickstats(5), { etag: '"v1"' }) : reply(clock, null, { etag: '"v1"' }),
    );
    const { snapshots, last, stop } = watch();
    await settle();
    const data = last().data;
    const delivered = snapshots.filter((snapshot) => snapshot.data).length;
    await clock.toNextTick();
    const request = server.requests[1]!;
    expect(request.cache).to.equal('no-cache');
    expect([...request.headers.keys()]).to.deep.equal(['accept']);
    expect(last().data).to.equal(data);
    expect(last().error).to.equal(undefined);
    expect(snapshots.filter((snapshot) => snapshot.data !== data && snapshot.data).length).to.equal(0);
    expect(delivered).to.equal(1);
    stop();
  });

  it('reads the body again when the ETag changed', async () => {
    let people = 5;
    const { clock } = freshHub(() => reply(clock, quickstats(people), { etag: `"v${people}"` }));
    const { last, stop } = watch();
    await settle();
    people = 6;
    await clock.toNextTick();
    expect((last().data as ReturnType<typeof quickstats>).data.stats.people).to.equal(6);
    stop();
  });

  it('keeps the identity of unchanged data and of unchanged parts', async () => {
    let people = 5;
    const { clock } = freshHub(() => reply(clock, quickstats(people)));
    const { last, stop } = watch();
    await settle();
    const first = last().data as ReturnType<typeof quickstats>;
    await clock.toNextTick();
    expect(last().data).to.equal(first);
    people = 6;
    await clock.toNextTick();
    const second = last().data as ReturnType<typeof quickstats>;
    expect(second).not.to.equal(first);
    expect(second.data.host_metadata).to.equal(first.data.host_metadata);
    stop();
  });

  it('delivers a body without the optional values it cannot use', async () => {
    const { clock } = freshHub(() =>
      reply(clock, { data: { stats: { people: 'many', read: 3, future: { x: 1 } } } }),
    );
    const { last, stop } = watch();
    await settle();
    expect(last().error).to.equal(undefined);
    expect(last().data).to.deep.equal({ data: { stats: { read: 3, future: { x: 1 } } } });
    stop();
  });

  it('treats a body without its essential fields as an error and keeps the old data', async () => {
    let valid = true;
    const { clock } = freshHub(() => reply(clock, valid ? quickstats(5) : { data: { stats: 'many' } }));
    const { last, stop } = watch();
    await settle();
    const good = last().data;
    valid = false;
    await clock.toNextTick();
    expect(last().error?.kind).to.equal('invalid');
    expect(last().data).to.equal(good);
    expect(last().stale).to.equal(true);
    stop();
  });

  it('flags data whose Last-Modified is old as stale', async () => {
    const { clock } = freshHub(() => reply(clock, quickstats(5), { age: 60_000 }));
    const { last, stop } = watch();
    await settle();
    expect(last().stale).to.equal(true);
    expect(clock.now() - last().updatedAt!).to.equal(60_000);
    stop();
  });

  it('reads the age of the data from Age, which a revalidated answer keeps current while its Last-Modified stays the first one', async () => {
    let calls = 0;
    const { clock } = freshHub(() =>
      ++calls === 1
        ? reply(clock, quickstats(5), { etag: '"v1"', headers: { Age: '0' } })
        : reply(clock, null, { etag: '"v1"', age: 30_000, headers: { Age: '1' } }),
    );
    const { last, stop } = watch();
    await settle();
    for (let tick = 0; tick < 10; tick++) await clock.toNextTick();
    expect(calls).to.equal(11);
    expect(clock.now() - last().updatedAt!).to.equal(1000);
    expect(last().stale).to.equal(false);
    stop();
  });

  it('never requests an address that is not a known route', async () => {
    const { server } = freshHub(() => new Response('{}'));
    const { last, stop } = watch(new URL('/live/nothing/v9/?host=example.com', document.baseURI).href);
    await settle();
    expect(server.count()).to.equal(0);
    expect(last().error?.kind).to.equal('source');
    stop();
  });
});

describe('the poll hub with elements', () => {
  failOnLitWarnings();

  it('keeps the subscription of an element moved in the DOM, without refetching', async () => {
    const { clock, server } = freshHub(() => reply(clock, quickstats(5)));
    const root = fixtureSync(
      html`<div><section id="a"><live-counter src=${URLS.quickstats}></live-counter></section><section id="b"></section></div>`,
    );
    await settleElements(root);
    const el = root.querySelector('live-counter')!;
    root.querySelector('#b')!.append(el);
    await settle();
    expect(server.count()).to.equal(1);
    expect(el.matches(':state(ready)')).to.equal(true);
    await clock.toNextTick();
    expect(server.count()).to.equal(2);
  });

  it('does not re-render or fire pulse-data when the data is identical', async () => {
    // Tick 1: equal data under a new ETag; 2: the browser revalidated it; 3: a 304 from a fetch
    // of the page's own (`configure({ fetch })`) that makes conditional requests itself.
    const answers = [
      () => reply(clock, quickstats(5), { etag: '"v1"' }),
      () => reply(clock, quickstats(5), { etag: '"v2"' }),
      () => reply(clock, null, { etag: '"v2"' }),
      () => reply(clock, null, { status: 304, etag: '"v2"' }),
    ];
    let calls = 0;
    const { clock } = freshHub(() => answers[calls++]!());
    const el = await fixture<LiveCounter>(html`<live-counter src=${URLS.quickstats}></live-counter>`);
    await settle();
    const renders = countRenders(el);
    let events = 0;
    el.addEventListener('pulse-data', () => events++);
    await clock.toNextTick();
    await clock.toNextTick();
    await clock.toNextTick();
    expect(calls).to.equal(4);
    expect(renders()).to.equal(0);
    expect(events).to.equal(0);
    expect(el.matches(':state(ready)')).to.equal(true);
  });

  it('shows the old data as stale and fires pulse-error when a body is invalid', async () => {
    let valid = true;
    const { clock } = freshHub(() => reply(clock, valid ? quickstats(5) : { nonsense: true }));
    const el = await fixture<LiveCounter>(html`<live-counter src=${URLS.quickstats}></live-counter>`);
    await settle();
    const errors: PulseErrorEvent[] = [];
    el.addEventListener('pulse-error', (event) => errors.push(event));
    valid = false;
    await clock.toNextTick();
    await el.updateComplete;
    expect(errors.map((event) => [event.error.kind, event.hasData])).to.deep.equal([['invalid', true]]);
    expect(el.matches(':state(ready)') && el.matches(':state(stale)')).to.equal(true);
    expect(el.shadowRoot!.querySelector('[part=value]')!.textContent).to.equal('5');
    expect(el.shadowRoot!.querySelector('[part=updated]')!.textContent).to.match(/^Out of date/);
  });

  it('ignores a late response for a src that was replaced', async () => {
    const held = deferred<Response>();
    const { clock } = freshHub((request) =>
      request.url.includes('late.example') ? held.promise : reply(clock, quickstats(7)),
    );
    const el = await fixture<LiveCounter>(
      html`<live-counter src="/live/quickstats/v4/?host=late.example"></live-counter>`,
    );
    const seen: PulseDataEvent[] = [];
    el.addEventListener('pulse-data', (event) => seen.push(event));
    el.src = URLS.quickstats;
    await el.updateComplete;
    held.resolve(reply(clock, quickstats(999)));
    await settle();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=value]')!.textContent).to.equal('7');
    expect(
      seen.map((event) => (event.data as ReturnType<typeof quickstats>).data.stats.people),
    ).to.deep.equal([7]);
  });
});

describe('replaceEqualDeep', () => {
  it('returns the previous value when deeply equal, and shares equal parts otherwise', () => {
    const before = { a: [1, { b: 2 }], c: { d: 'x' } };
    expect(replaceEqualDeep(before, JSON.parse(JSON.stringify(before)))).to.equal(before);
    const after = replaceEqualDeep(before, { a: [1, { b: 3 }], c: { d: 'x' } });
    expect(after).not.to.equal(before);
    expect(after.c).to.equal(before.c);
    expect(replaceEqualDeep([1, 2], [1, 2, 3])).to.deep.equal([1, 2, 3]);
    expect(replaceEqualDeep({ a: 1 }, { b: 1 })).to.deep.equal({ b: 1 });
  });
});
