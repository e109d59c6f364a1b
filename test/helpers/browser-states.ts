/**
 * The behaviour every element shares, as one suite: each state renders something readable and
 * is accessible, events bubble out, theme and source errors work. An element's test file calls
 * it with its tag, a URL and bodies; a new element gets all of it from one call.
 */
import { expect, fixture } from '@open-wc/testing';
import { html, unsafeStatic } from 'lit/static-html.js';
import { ROUTE_PATHS } from '../../src/api/paths.ts';
import type { PulseElement } from '../../src/index.ts';
import { deferred, freshHub as freshPageHub, reply, setPageHidden, settle } from './browser-fakes.ts';

export interface CommonCase {
  tag: string;
  src: string;
  ready: unknown;
  empty: unknown;
  /** Text the ready view must contain. */
  readyText: string;
  /** Attributes that make `empty` count as empty (the live counter needs a threshold). */
  emptyAttributes?: string;
  /** False for an element hidden when empty (the public live counter). */
  emptyVisible?: boolean;
  /**
   * For an element that loads each `src` once instead of polling it (headline-tests): how old
   * its data may be before it is stale. Such an element is stale from an old answer rather than
   * a failed poll, and is paused only while it waits to load.
   */
  loadsOnce?: { maxAgeMs: number };
  /**
   * Bodies for the other addresses the element loads beside `src` (<traffic-chart>'s history),
   * answered in every case; `undefined` for `src` itself.
   */
  alongside?: (url: string) => unknown;
}

type Element = PulseElement<unknown>;

export function states(el: HTMLElement): string[] {
  return ['loading', 'ready', 'empty', 'error', 'stale', 'paused'].filter((state) =>
    el.matches(`:state(${state})`),
  );
}

export function text(el: HTMLElement): string {
  return (el.shadowRoot!.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * Records every `style` attribute written through the DOM (what CSP's `style-src-attr` blocks),
 * until `stop()`. Custom properties set through CSSOM (`style.setProperty`) are not writes.
 */
export function recordStyleAttributeWrites(): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const { setAttribute, setAttributeNS } = Element.prototype;
  Element.prototype.setAttribute = function (this: Element, name: string, value: string) {
    if (name.toLowerCase() === 'style') seen.push(`<${this.localName} style="${value}">`);
    return setAttribute.call(this, name, value);
  };
  Element.prototype.setAttributeNS = function (
    this: Element,
    namespace: string | null,
    name: string,
    value: string,
  ) {
    if (name.toLowerCase() === 'style') seen.push(`<${this.localName} style="${value}">`);
    return setAttributeNS.call(this, namespace, name, value);
  };
  const stop = () => Object.assign(Element.prototype, { setAttribute, setAttributeNS });
  return { seen, stop };
}

export function describeCommonBehaviour(c: CommonCase): void {
  const tag = unsafeStatic(c.tag);
  const freshHub: typeof freshPageHub = (handler, options) => {
    const made = freshPageHub((request) => {
      const other = c.alongside?.(request.url);
      return other === undefined ? handler(request) : reply(made.clock, other);
    }, options);
    return made;
  };
  const mount = async (src = c.src, attributes = '', wait = true) => {
    const el = await fixture<Element>(html`<${tag} src=${src} ${unsafeStatic(attributes)}></${tag}>`);
    if (wait) await settle();
    await el.updateComplete;
    return el;
  };

  describe(`<${c.tag}>: common behaviour`, () => {
    afterEach(() => setPageHidden(false));

    it('shows a loading state until the first data, accessibly', async () => {
      const held = deferred<Response>();
      freshHub(() => held.promise);
      const el = await mount(c.src, '', false);
      expect(states(el)).to.deep.equal(['loading']);
      expect(text(el)).to.contain('Loading');
      await expect(el).to.be.accessible();
    });

    it('shows the data when ready, accessibly in light and dark', async () => {
      const { clock } = freshHub(() => reply(clock, c.ready));
      const el = await mount();
      expect(states(el)).to.deep.equal(['ready']);
      expect(text(el)).to.contain(c.readyText);
      expect(text(el)).to.contain('Updated');
      await expect(el).to.be.accessible();
      el.theme = 'dark';
      await el.updateComplete;
      expect(el.getAttribute('theme')).to.equal('dark');
      expect(getComputedStyle(el).colorScheme).to.equal('dark');
      await expect(el).to.be.accessible();
    });

    it('writes no style attribute, which a strict CSP (style-src-attr) would block', async () => {
      const { clock } = freshHub(() => reply(clock, c.ready));
      const writes = recordStyleAttributeWrites();
      try {
        const el = await mount();
        expect(states(el)).to.deep.equal(['ready']);
        await clock.toNextTick();
        await el.updateComplete;
      } finally {
        writes.stop();
      }
      expect(writes.seen).to.deep.equal([]);
    });

    it('says when there is nothing to show, accessibly', async () => {
      const { clock } = freshHub(() => reply(clock, c.empty));
      const el = await mount(c.src, c.emptyAttributes);
      expect(states(el)).to.deep.equal(['empty']);
      if (c.emptyVisible !== false) expect(text(el).length).to.be.greaterThan(10);
      await expect(el).to.be.accessible();
    });

    it('explains an error in words when there is no data, accessibly', async () => {
      const { clock } = freshHub(() =>
        reply(
          clock,
          { error: { code: 'bad_param', message: 'limit must be at most 100', param: 'limit' } },
          { status: 400 },
        ),
      );
      const el = await mount();
      expect(states(el)).to.deep.equal(['error']);
      expect(el.shadowRoot!.querySelector('[part=error]')!.textContent).to.equal('limit must be at most 100');
      await expect(el).to.be.accessible();
    });

    it('never shows a stack trace or a blank box when the network fails', async () => {
      freshHub(() => Promise.reject(new TypeError('Failed to fetch at line 42')));
      const el = await mount();
      expect(states(el)).to.deep.equal(['error']);
      expect(text(el)).to.contain('could not be reached');
      expect(text(el)).not.to.contain('line 42');
    });

    it('refuses a missing src or one for another route, with an explanation', async () => {
      const { server } = freshHub(() => new Response('{}'));
      const missing = await mount('');
      expect(states(missing)).to.deep.equal(['error']);
      expect(text(missing)).to.contain('No data source');
      const wrong = await mount(
        c.src.includes('/referrers/')
          ? '/live/top_geo/v1/?host=example.com'
          : '/live/referrers/v3/?host=example.com',
      );
      expect(states(wrong)).to.deep.equal(['error']);
      const { route } = wrong.constructor as typeof PulseElement;
      expect(text(wrong)).to.contain(`src must be the address of a ${ROUTE_PATHS[route]} resource.`);
      const script = await mount('javascript:alert(1)');
      expect(states(script)).to.deep.equal(['error']);
      expect(server.count()).to.equal(0);
      await expect(wrong).to.be.accessible();
    });

    it('keeps the data with a visible notice when it becomes stale, accessibly', async () => {
      let failing = false;
      const { clock } = freshHub(() =>
        failing
          ? new Response(null, { status: 503 })
          : reply(clock, c.ready, { age: c.loadsOnce ? c.loadsOnce.maxAgeMs + 30_000 : 0 }),
      );
      const el = await mount();
      if (!c.loadsOnce) {
        failing = true;
        await clock.toNextTick();
        await el.updateComplete;
      }
      expect(states(el)).to.deep.equal(['ready', 'stale']);
      expect(text(el)).to.contain(c.readyText);
      expect(el.shadowRoot!.querySelector('[part=updated]')!.textContent).to.match(
        /^Out of date: last updated/,
      );
      await expect(el).to.be.accessible();
    });

    it('waits, paused, while the page is hidden, and loads when it is shown, accessibly', async () => {
      const { clock, server } = freshHub(() => reply(clock, c.ready));
      setPageHidden(true);
      const el = await mount();
      expect(states(el)).to.deep.equal(['loading', 'paused']);
      expect(el.shadowRoot!.querySelector('[part=updated]')!.textContent).to.match(/^Paused/);
      // Requests for `src` itself: an element may load other addresses alongside (history).
      const path = c.src.split('?')[0]!;
      expect(server.count()).to.equal(0);
      await expect(el).to.be.accessible();
      setPageHidden(false);
      await settle();
      await el.updateComplete;
      expect(states(el)).to.deep.equal(['ready']);
      expect(server.count(path)).to.equal(1);
    });

    if (!c.loadsOnce) {
      it('shows that it is paused while the page is hidden, accessibly', async () => {
        const { clock } = freshHub(() => reply(clock, c.ready));
        const el = await mount();
        setPageHidden(true);
        await el.updateComplete;
        expect(states(el)).to.deep.equal(['ready', 'paused']);
        expect(el.shadowRoot!.querySelector('[part=updated]')!.textContent).to.match(/^Paused/);
        await expect(el).to.be.accessible();
      });
    }

    it('fires pulse-data and pulse-error that bubble out of shadow roots', async () => {
      let failing = false;
      const { clock } = freshHub(() =>
        failing ? new Response(null, { status: 500 }) : reply(clock, c.ready),
      );
      const outer = document.createElement('div');
      const shadow = outer.attachShadow({ mode: 'open' });
      const el = document.createElement(c.tag) as Element;
      el.src = c.src;
      const seen: string[] = [];
      outer.addEventListener('pulse-data', (event) =>
        seen.push(`${event.type}:${event.data === c.ready ? 'same' : 'validated'}`),
      );
      outer.addEventListener('pulse-error', (event) =>
        seen.push(`${event.type}:${event.error.status}:${event.hasData}`),
      );
      shadow.append(el);
      document.body.append(outer);
      await el.updateComplete;
      await settle();
      failing = true;
      if (c.loadsOnce) {
        // Nothing is asked again: the next load is for a new src, with no data to keep.
        el.src = `${c.src}&again=1`;
        await el.updateComplete;
        await settle();
      } else {
        await clock.toNextTick();
      }
      outer.remove();
      expect(seen).to.deep.equal(['pulse-data:validated', `pulse-error:500:${!c.loadsOnce}`]);
    });
  });
}
