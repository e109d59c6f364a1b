/**
 * What an element needs on a CMS page it does not control: the page's colour scheme, not the
 * reader's OS, decides `theme="auto"`; the page's text styles stop at the shadow root; a sentence
 * quoting an error stays in one language; a blocked cross-origin endpoint gets one console hint;
 * a list can hide its heading and keep its accessible name.
 */
import { expect, fixture, fixtureCleanup, fixtureSync, waitUntil } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import '../src/index.ts';
import ar from '../src/locales/ar.ts';
import de from '../src/locales/de.ts';
import es from '../src/locales/es.ts';
import fr from '../src/locales/fr.ts';
import it_ from '../src/locales/it.ts';
import ja from '../src/locales/ja.ts';
import nl from '../src/locales/nl.ts';
import pl from '../src/locales/pl.ts';
import pt from '../src/locales/pt.ts';
import { cardTerms, trafficChartTerms } from '../src/locales/en.ts';
import { configure, getHub } from '../src/client/index.ts';
import {
  FakeClock,
  failOnLitWarnings,
  freshHub,
  reply,
  settle,
  settleElements,
} from './helpers/browser-fakes.ts';
import { bodiesByRoute, quickstats, URLS } from './helpers/browser-fixtures.ts';

const LIGHT_SURFACE = 'rgb(255, 255, 255)';
const DARK_SURFACE = 'rgb(13, 17, 23)';

/**
 * Mounts `markup` (one pulse element inside, maybe in a wrapper) and returns that element once it
 * shows data. The root is a plain <div>, so `fixtureSync`: `fixture` would wait for a frame, and a
 * test file WTR runs in a background tab gets none.
 */
async function mount(markup: string): Promise<HTMLElement> {
  const root = fixtureSync<HTMLElement>(`<div lang="en">${markup}</div>`);
  await settleElements(root);
  return root.querySelector('live-counter, top-pages, geo-list, referrer-bars, traffic-chart')!;
}

/** A fresh hub whose endpoint answers every route with data. */
function answerEveryRoute(): void {
  const answer = bodiesByRoute({});
  const { clock } = freshHub((request) => reply(clock, answer(request.url)));
}

const surface = (el: Element) =>
  getComputedStyle(el.shadowRoot!.querySelector('[part=base]')!).backgroundColor;

describe('theme="auto" follows the page', () => {
  failOnLitWarnings();
  beforeEach(answerEveryRoute);

  afterEach(() => {
    document.querySelector('meta[name=color-scheme]')?.remove();
    document.documentElement.style.colorScheme = '';
  });

  it('is light on a page that says nothing', async () => {
    expect(surface(await mount(`<live-counter src="${URLS.quickstats}"></live-counter>`))).to.equal(
      LIGHT_SURFACE,
    );
  });

  it('is dark on a page whose <meta name="color-scheme"> supports dark only', async () => {
    document.head.insertAdjacentHTML('beforeend', '<meta name="color-scheme" content="dark">');
    expect(surface(await mount(`<live-counter src="${URLS.quickstats}"></live-counter>`))).to.equal(
      DARK_SURFACE,
    );
  });

  it('is dark when the root says color-scheme: dark', async () => {
    document.documentElement.style.colorScheme = 'dark';
    expect(surface(await mount(`<live-counter src="${URLS.quickstats}"></live-counter>`))).to.equal(
      DARK_SURFACE,
    );
  });

  it('sets every element at once from an ancestor\'s color-scheme; theme="light" and "dark" still win', async () => {
    const root = fixtureSync<HTMLElement>(`<div lang="en" style="color-scheme: dark">
      <live-counter src="${URLS.quickstats}"></live-counter><top-pages src="${URLS.toppages}"></top-pages><geo-list theme="light" src="${URLS.geo}"></geo-list>
    </div>`);
    await settleElements(root);
    const [counter, pages, geo] = [...root.children];
    expect([surface(counter!), surface(pages!), surface(geo!)]).to.deep.equal([
      DARK_SURFACE,
      DARK_SURFACE,
      LIGHT_SURFACE,
    ]);
    expect(
      surface(await mount(`<live-counter theme="dark" src="${URLS.quickstats}"></live-counter>`)),
    ).to.equal(DARK_SURFACE);
  });

  describe("with the reader's OS in dark mode", () => {
    let emulated = true;
    before(async () => {
      try {
        await emulateMedia({ colorScheme: 'dark' });
      } catch (error) {
        emulated = false;
        console.log(
          `# skipped: this engine's driver cannot emulate prefers-color-scheme (${(error as Error).message.split('\n')[0]})`,
        );
      }
    });
    after(async () => {
      if (emulated) await emulateMedia({ colorScheme: 'light' });
    });

    it('stays light on a light page: the OS does not decide', async function () {
      if (!emulated) this.skip();
      expect(matchMedia('(prefers-color-scheme: dark)').matches).to.equal(true);
      expect(surface(await mount(`<live-counter src="${URLS.quickstats}"></live-counter>`))).to.equal(
        LIGHT_SURFACE,
      );
    });

    it('is dark on a page that supports both', async function () {
      if (!emulated) this.skip();
      document.head.insertAdjacentHTML('beforeend', '<meta name="color-scheme" content="light dark">');
      expect(surface(await mount(`<live-counter src="${URLS.quickstats}"></live-counter>`))).to.equal(
        DARK_SURFACE,
      );
    });
  });
});

describe("the page's text styles stop at the shadow root", () => {
  failOnLitWarnings();
  beforeEach(answerEveryRoute);

  it('a narrow column that breaks words, spaces letters and shouts leaves the list as designed', async () => {
    // What WordPress Columns and a theme's prose styles put on everything inside.
    const el =
      await mount(`<div style="inline-size: 22rem; word-break: break-all; overflow-wrap: anywhere; letter-spacing: 0.3em; word-spacing: 1em;
      text-transform: uppercase; white-space: pre; text-align: center; text-indent: 3em; line-height: 3; font-style: italic; font-weight: 700; hyphens: auto">
      <top-pages src="${URLS.toppages}"></top-pages></div>`);
    const header = el.shadowRoot!.querySelector('th')!;
    const style = getComputedStyle(header);
    expect({
      wordBreak: style.wordBreak,
      letterSpacing: style.letterSpacing,
      wordSpacing: style.wordSpacing,
      textTransform: style.textTransform,
      whiteSpace: style.whiteSpace,
      textIndent: style.textIndent,
      fontStyle: style.fontStyle,
      hyphens: style.hyphens,
      // The header row is designed never to wrap (its height is fixed, so polls never move the page).
    }).to.deep.equal({
      wordBreak: 'normal',
      letterSpacing: 'normal',
      wordSpacing: '0px',
      textTransform: 'none',
      whiteSpace: 'nowrap',
      textIndent: '0px',
      fontStyle: 'normal',
      hyphens: 'manual',
    });
    expect(getComputedStyle(el).lineHeight).to.not.equal(getComputedStyle(el.parentElement!).lineHeight);
    expect(getComputedStyle(el.shadowRoot!.querySelector('[part=label]')!).textAlign).to.be.oneOf([
      'start',
      'left',
    ]);
    // "Rank" sits on one line: its box is no taller than one line of the table's text.
    const rank = [...el.shadowRoot!.querySelectorAll('th')].find((th) => th.textContent!.trim() === 'Rank')!;
    const range = document.createRange();
    range.selectNodeContents(rank);
    expect(range.getClientRects().length).to.equal(1, '"Rank" is not broken over lines');
  });
});

describe("an error quoted in a sentence is in the sentence's language", () => {
  failOnLitWarnings();

  const LOCALES = { ar, de, es, fr, it: it_, ja, nl, pl, pt };
  for (const [code, terms] of Object.entries(LOCALES)) {
    it(`<traffic-chart lang="${code}">: history unavailable (HTTP 503)`, async () => {
      const { clock } = freshHub((request) =>
        request.url.includes('/history/v1/')
          ? new Response(
              JSON.stringify({
                error: { code: 'history_unavailable', message: 'History cannot be read right now' },
              }),
              { status: 503 },
            )
          : reply(clock, quickstats(1180)),
      );
      const el = await fixture<HTMLElement>(
        `<traffic-chart lang="${code}" src="${URLS.quickstats}"></traffic-chart>`,
      );
      await settle();
      const notice = () => el.shadowRoot!.querySelector('[part~=notice].error');
      await waitUntil(notice, 'the history failed');
      const expected = terms.chartHistoryError(terms.errorUnavailable(503));
      expect(notice()!.textContent).to.equal(expected);
      expect(expected).to.not.contain(cardTerms.errorUnavailable(503));
      expect(expected).to.not.contain(trafficChartTerms.chartHistoryError('').trim());
    });
  }
});

describe('a cross-origin endpoint the browser blocks', () => {
  let warned: string[] = [];
  const original = console.warn;

  beforeEach(() => {
    warned = [];
    console.warn = (...args: unknown[]) => {
      const text = args.map(String).join(' ');
      if (!text.includes('Lit is in dev mode')) warned.push(text);
    };
    getHub().dispose();
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
    // The real fetch: the browser itself refuses the answer, which carries no CORS header.
    configure({ clock: new FakeClock(), fetch: (...args) => globalThis.fetch(...args), random: () => 0.5 });
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('pulse-widgets.cross-origin-hints')];
  });

  afterEach(() => {
    console.warn = original;
    fixtureCleanup();
  });

  it('logs one hint naming PULSE_ALLOWED_ORIGINS and connect-src, however many elements and addresses fail', async () => {
    // The test server under another name is another origin.
    const other = `${location.protocol}//${location.hostname === '127.0.0.1' ? 'localhost' : '127.0.0.1'}:${location.port}`;
    const root = fixtureSync<HTMLElement>(`<div lang="en">
      <live-counter src="${other}${URLS.quickstats}"></live-counter>
      <live-counter src="${other}${URLS.quickstats}&amp;path=/a"></live-counter>
      <top-pages src="${other}${URLS.toppages}"></top-pages>
    </div>`);
    const elements = [...root.children];
    await waitUntil(
      () => elements.every((el) => el.shadowRoot!.textContent!.includes(cardTerms.errorUnreachable)),
      'every element failed',
      { timeout: 10_000 },
    );
    expect(warned).to.have.length(1);
    expect(warned[0])
      .to.contain(`allow ${location.origin} in its PULSE_ALLOWED_ORIGINS`)
      .and.contain('connect-src')
      .and.contain(other);
  });

  it('logs nothing when a same-origin address fails', async () => {
    configure({ fetch: () => Promise.reject(new TypeError('Failed to fetch')) });
    const el = await fixture<HTMLElement>(`<live-counter lang="en" src="${URLS.quickstats}"></live-counter>`);
    await waitUntil(
      () => el.shadowRoot!.textContent!.includes(cardTerms.errorUnreachable),
      'the element failed',
    );
    expect(warned).to.deep.equal([]);
  });
});

describe('no-heading', () => {
  failOnLitWarnings();
  beforeEach(answerEveryRoute);

  it("hides a list's label from view, and the list keeps it as its accessible name", async () => {
    const el = await mount(`<geo-list no-heading label="Readers by country" src="${URLS.geo}"></geo-list>`);
    const label = el.shadowRoot!.querySelector<HTMLElement>('[part=label]')!;
    const box = label.getBoundingClientRect();
    expect(box.width * box.height).to.be.at.most(1);
    const list = el.shadowRoot!.querySelector('ol')!;
    expect(el.shadowRoot!.getElementById(list.getAttribute('aria-labelledby')!)!.textContent).to.equal(
      'Readers by country',
    );
    await expect(el).to.be.accessible();
    const shown = await mount(`<geo-list label="Readers by country" src="${URLS.geo}"></geo-list>`);
    expect(shown.shadowRoot!.querySelector('[part=label]')!.getBoundingClientRect().height).to.be.greaterThan(
      5,
    );
  });

  it('does the same for a table (top-pages)', async () => {
    const el = await mount(`<top-pages no-heading src="${URLS.toppages}"></top-pages>`);
    expect(el.shadowRoot!.querySelector('[part=label]')!.getBoundingClientRect().height).to.be.at.most(1);
    expect(el.shadowRoot!.querySelector('table')!.getAttribute('aria-labelledby')).to.equal('label');
    await expect(el).to.be.accessible();
  });
});
