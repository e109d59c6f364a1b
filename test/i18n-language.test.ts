/**
 * Which language an element speaks (its lang, an ancestor's through shadow roots, <html>, the
 * browser's, English), how it follows a change, plural forms per language, and Arabic right to
 * left, accessibly.
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import type { ReactiveControllerHost } from 'lit';
import '../src/index.ts';
import { LocalizeController } from '../src/internal/localize.ts';
import { registerTranslation } from '../src/internal/translations.ts';
import ar from '../src/locales/ar.ts';
import de from '../src/locales/de.ts';
import { cardTerms, en, shareListTerms, summaryStatsTerms } from '../src/locales/en.ts';
import fr from '../src/locales/fr.ts';
import ja from '../src/locales/ja.ts';
import pl from '../src/locales/pl.ts';
import '../src/locales/es.ts';
import '../src/locales/nl.ts';
import { storyFetch, storySrc } from '../stories/support/endpoint.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { quickstats, topGeo, URLS } from './helpers/browser-fixtures.ts';

type Element = HTMLElement;

/** "vor 2 Sek.", "il y a 5 s": how the engine's Intl says an age (its data differs a little between engines). */
const ago = (lang: string, seconds: number) =>
  new Intl.RelativeTimeFormat(lang, { numeric: 'auto', style: 'short' }).format(-seconds, 'second');
/** A sentence's end, once ("vor 2 Sek." ends with its abbreviation's period). */
const period = (text: string) => (text.endsWith('.') ? text : `${text}.`);

const label = (el: Element) => el.shadowRoot!.querySelector('[part=label]')!.textContent;
const value = (el: Element) => el.shadowRoot!.querySelector('[part=value]')!.textContent;
const card = (el: Element) => el.shadowRoot!.querySelector('[part=base]')!;

/** Waits for every element under `root` to render what the page's language change asked for. */
async function rendered(root: globalThis.Element): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve));
  await settleElements(root);
}

async function counters(markup: string): Promise<globalThis.Element> {
  const { clock } = freshHub(() => reply(clock, quickstats(1234567)));
  const root = fixtureSync(html`<div></div>`);
  root.innerHTML = markup;
  await settleElements(root);
  return root;
}

/** Replaces what the browser reports as its language, and tells the page, as a browser does. */
function browserLanguage(language: string | undefined): void {
  if (language === undefined) delete (navigator as { language?: string }).language;
  else Object.defineProperty(navigator, 'language', { configurable: true, get: () => language });
  window.dispatchEvent(new Event('languagechange'));
}

describe('the language of an element', () => {
  failOnLitWarnings();
  const pageLang = document.documentElement.getAttribute('lang');
  afterEach(() => {
    if (pageLang === null) document.documentElement.removeAttribute('lang');
    else document.documentElement.setAttribute('lang', pageLang);
    browserLanguage(undefined);
  });

  it("is its own lang first, then the nearest ancestor's, then <html>'s, then the browser's", async () => {
    document.documentElement.lang = 'es';
    browserLanguage('nl-NL');
    const root =
      await counters(`<div lang="fr"><live-counter lang="de" src="${URLS.quickstats}"></live-counter><live-counter src="${URLS.quickstats}"></live-counter></div>
      <live-counter src="${URLS.quickstats}"></live-counter>`);
    const [own, ancestor, page] = [...root.querySelectorAll('live-counter')] as Element[];
    expect([label(own!), value(own!)]).to.deep.equal([de.counterPeople, '1.234.567']);
    expect([label(ancestor!), value(ancestor!)]).to.deep.equal([
      fr.counterPeople,
      new Intl.NumberFormat('fr').format(1234567),
    ]);
    expect(label(page!)).to.equal('Personas en el sitio ahora');
    document.documentElement.removeAttribute('lang');
    await rendered(root);
    expect(label(page!)).to.equal('Nu op de site');
    browserLanguage('xx');
    await rendered(root);
    expect(label(page!)).to.equal(en.counterPeople);
  });

  it("crosses shadow roots to find an ancestor's lang, and follows its changes there", async () => {
    const { clock } = freshHub(() => reply(clock, quickstats(42)));
    const outer = fixtureSync(html`<section lang="ja"></section>`);
    const inner = document.createElement('div');
    outer.attachShadow({ mode: 'open' }).append(inner);
    inner.innerHTML = `<live-counter src="${URLS.quickstats}"></live-counter>`;
    const el = inner.querySelector('live-counter') as Element;
    await settleElements(inner);
    expect(label(el)).to.equal(ja.counterPeople);
    inner.setAttribute('lang', 'pl');
    await rendered(inner);
    expect(label(el)).to.equal(pl.counterPeople);
    outer.setAttribute('lang', 'de');
    inner.removeAttribute('lang');
    await rendered(inner);
    expect(label(el)).to.equal(de.counterPeople);
  });

  it('falls back from a region to its language, and keeps the region for numbers', async () => {
    const root = await counters(`<live-counter lang="de-AT" src="${URLS.quickstats}"></live-counter>`);
    const el = root.firstElementChild as Element;
    expect(label(el)).to.equal(de.counterPeople);
    expect(value(el)).to.equal(new Intl.NumberFormat('de-AT').format(1234567));
    expect(card(el).hasAttribute('lang')).to.equal(false);
  });

  it('is English throughout for a language without a translation, and says so to assistive technology', async () => {
    const root = await counters(
      `<live-counter lang="sv" src="${URLS.quickstats}"></live-counter><live-counter lang="en-GB" src="${URLS.quickstats}"></live-counter>`,
    );
    const [swedish, british] = [...root.children] as Element[];
    expect([label(swedish!), value(swedish!)]).to.deep.equal([en.counterPeople, '1,234,567']);
    expect(card(swedish!).getAttribute('lang')).to.equal('en');
    expect(card(british!).hasAttribute('lang')).to.equal(false);
  });

  it('renders again when lang changes on the element, an ancestor or <html>, or a translation arrives', async () => {
    const root = await counters(`<div><live-counter src="${URLS.quickstats}"></live-counter></div>`);
    const el = root.querySelector('live-counter') as Element;
    el.setAttribute('lang', 'fr');
    await rendered(root);
    expect(label(el)).to.equal(fr.counterPeople);
    el.removeAttribute('lang');
    root.firstElementChild!.setAttribute('lang', 'de');
    await rendered(root);
    expect(label(el)).to.equal(de.counterPeople);
    root.firstElementChild!.removeAttribute('lang');
    document.documentElement.lang = 'ar';
    await rendered(root);
    expect(label(el)).to.equal(ar.counterPeople);
    document.documentElement.lang = 'eo';
    await rendered(root);
    expect(label(el)).to.equal(en.counterPeople);
    registerTranslation({ ...de, $code: 'eo', $name: 'Esperanto', counterPeople: 'Homoj en la retejo nun' });
    await rendered(root);
    expect(label(el)).to.equal('Homoj en la retejo nun');
  });

  it("formats what the browser's Intl names in the same language: relative time, countries", async () => {
    const { clock } = freshHub(() => reply(clock, topGeo({ DE: 5 }), { age: 5000 }));
    const root = fixtureSync(html`<div lang="fr"><geo-list src=${URLS.geo}></geo-list></div>`);
    await settleElements(root);
    const el = root.firstElementChild as Element;
    expect(el.shadowRoot!.querySelector('[part=name]')!.textContent).to.equal('Allemagne');
    expect(el.shadowRoot!.querySelector('[part=updated]')!.textContent).to.equal(
      `Mis à jour ${ago('fr', 5)}.`,
    );
  });
});

describe('values the catalog names', () => {
  it("summary-stats names new and returning visitors and the empty value in the element's language", async () => {
    const { clock } = freshHub(() =>
      reply(clock, {
        new: { type: 'string', data: { 1: 5, 0: 3 } },
        referrer: { type: 'string', data: { '': 4 } },
      }),
    );
    const root = fixtureSync(
      html`<div lang="de"><summary-stats src="/live/summary/v3/?host=example.com&keys=new,referrer"></summary-stats></div>`,
    );
    await settleElements(root);
    const values = [...root.firstElementChild!.shadowRoot!.querySelectorAll('[part=value]')].map(
      (cell) => cell.textContent,
    );
    expect(values).to.deep.equal([de.loyaltyNew, de.loyaltyReturning, de.summaryNoValue]);
  });
});

describe('the updated line', () => {
  it("ages once a second in the element's language, without rendering the element again", async () => {
    const { clock } = freshHub(() => reply(clock, quickstats(42)));
    const root = fixtureSync(html`<div lang="de"><live-counter src=${URLS.quickstats}></live-counter></div>`);
    await settleElements(root);
    const el = root.firstElementChild as HTMLElement & ReactiveControllerHost;
    const line = () => el.shadowRoot!.querySelector('[part=updated]')!.textContent;
    expect(line()).to.equal(period(`Aktualisiert ${ago('de', 0)}`));
    let renders = 0;
    el.addController({ hostUpdated: () => renders++ });
    // Past the next poll (identical data: nothing to render) to 2 s after it.
    await clock.advance(2_000);
    expect(line()).to.equal(period(`Aktualisiert ${ago('de', 2)}`));
    await clock.advance(2_000);
    expect(line()).to.equal(period(`Aktualisiert ${ago('de', 1)}`));
    expect(renders).to.equal(0);
    root.setAttribute('lang', 'fr');
    await rendered(root);
    // Rendered half a second after the line's last whole second: 1.5 s reads as 2.
    expect(line()).to.equal(`Mis à jour ${ago('fr', 2)}.`);
  });
});

describe('plural forms', () => {
  /** A term of `lang` for each count, through a bare controller host in that language. */
  function forms(
    lang: string,
    counts: number[],
    say: (localize: LocalizeController, count: number) => string,
  ): string[] {
    const host = Object.assign(document.createElement('span'), {
      lang,
      addController() {},
      removeController() {},
      requestUpdate() {},
      updateComplete: Promise.resolve(true),
    });
    document.body.append(host);
    const localize = new LocalizeController(host, { ...cardTerms, ...shareListTerms, ...summaryStatsTerms });
    try {
      return counts.map((count) => say(localize, count));
    } finally {
      host.remove();
    }
  }
  const visitors = (localize: LocalizeController, count: number) =>
    `${localize.count(count)} ${localize.term('visitorsUnit', localize.count(count))}`;
  const values = (localize: LocalizeController, count: number) =>
    localize.term('summaryOtherValues', localize.count(count));

  it('English: one and other, by the number as shown', () => {
    expect(forms('en', [1, 2, 0, 1.5, 1.04], visitors)).to.deep.equal([
      '1 visitor',
      '2 visitors',
      '0 visitors',
      '1.5 visitors',
      '1 visitor',
    ]);
    expect(forms('en', [1, 7], values)).to.deep.equal(['1 other value', '7 other values']);
  });

  it('Polish: one, few, many and other', () => {
    expect(forms('pl', [1, 2, 5, 22, 1.5], values)).to.deep.equal([
      '1 inna wartość',
      '2 inne wartości',
      '5 innych wartości',
      '22 inne wartości',
      '1,5 innej wartości',
    ]);
  });

  it('Arabic: zero, one, two, few, many and other', () => {
    const arabic = forms('ar', [0, 1, 2, 3, 11, 100], values);
    const digits = (count: number) => new Intl.NumberFormat('ar').format(count);
    expect(arabic).to.deep.equal([
      'لا قيم أخرى',
      'قيمة أخرى واحدة',
      'قيمتان أخريان',
      `${digits(3)} قيم أخرى`,
      `${digits(11)} قيمة أخرى`,
      `${digits(100)} قيمة أخرى`,
    ]);
  });

  it('French: 0 and 1 are singular, a million takes "de"', () => {
    expect(forms('fr', [0, 1, 2, 1_000_000], visitors).map((text) => text.replace(/\s/g, ' '))).to.deep.equal(
      ['0 visiteur', '1 visiteur', '2 visiteurs', '1 000 000 de visiteurs'],
    );
  });

  it('Japanese: one form for every count', () => {
    expect(forms('ja', [1, 2, 5], values)).to.deep.equal([
      'その他の値 1件',
      'その他の値 2件',
      'その他の値 5件',
    ]);
  });

  it('are right in the elements: "1 other value", "1 visitor"', async () => {
    const { clock } = freshHub(() => reply(clock, { referrer: { type: 'string', data: { a: 5, b: 3 } } }));
    const root = fixtureSync(
      html`<div lang="en"><summary-stats src="/live/summary/v3/?host=example.com&keys=referrer" max="1"></summary-stats></div>`,
    );
    await settleElements(root);
    expect(root.firstElementChild!.shadowRoot!.querySelector('tr.other th')!.textContent).to.equal(
      '1 other value',
    );
  });
});

describe('Arabic, right to left', () => {
  failOnLitWarnings();

  const TAGS = {
    'live-counter': 'quickstats',
    'top-pages': 'toppages',
    'geo-list': 'top_geo',
    'referrer-bars': 'referrers',
    'traffic-sources': 'quickstats',
    'platform-split': 'quickstats',
    'engagement-histogram': 'quickstats',
    'summary-stats': 'summary',
    'headline-tests': 'raw_data',
  } as const;

  async function arabicPage(attributes = 'lang="ar"') {
    const { clock } = freshHub((request) => storyFetch(request.url, { signal: request.signal }));
    const root = fixtureSync(html`<div></div>`);
    root.innerHTML = `<div ${attributes}>${Object.entries(TAGS)
      .map(([tag, route]) => {
        const query: Record<string, string> = route === 'summary' ? { keys: 'time_spent,referrer' } : {};
        return `<${tag} src="${storySrc(route, query)}"${tag === 'headline-tests' ? ' tz="UTC" page-size="2"' : ''}></${tag}>`;
      })
      .join('')}</div>`;
    await settleElements(root);
    // A second answer, for the live counter's delta and sparkline.
    await clock.toNextTick();
    await settleElements(root);
    return root;
  }

  it('takes its direction from the language when the page sets none, and mirrors bars, sparkline and tables', async function () {
    this.timeout(15_000);
    const root = await arabicPage();
    for (const el of root.querySelectorAll<Element>('*')) {
      if (!el.shadowRoot) continue;
      expect(card(el).getAttribute('dir'), el.localName).to.equal('rtl');
      expect(getComputedStyle(card(el)).direction).to.equal('rtl');
    }
    const geo = root.querySelector('geo-list')!.shadowRoot!;
    const fill = geo.querySelector<HTMLElement>('.bar-fill')!;
    expect(getComputedStyle(fill).transformOrigin.split(' ')[0]).to.equal(`${fill.offsetWidth}px`);
    const table = root.querySelector('top-pages')!.shadowRoot!.querySelector('table')!;
    const [rank, title] = table.querySelectorAll('th');
    expect(rank!.getBoundingClientRect().left).to.be.greaterThan(title!.getBoundingClientRect().left);
    const counter = root.querySelector('live-counter')!.shadowRoot!;
    const sparkline = counter.querySelector('[part=sparkline]');
    if (sparkline) expect(getComputedStyle(sparkline).transform).to.equal('matrix(-1, 0, 0, 1, 0, 0)');
  });

  it('keeps the direction the page sets', async function () {
    this.timeout(15_000);
    const root = await arabicPage('lang="ar" dir="ltr"');
    const el = root.querySelector<Element>('geo-list')!;
    expect(card(el).hasAttribute('dir')).to.equal(false);
    expect(getComputedStyle(card(el)).direction).to.equal('ltr');
    expect(label(el)).to.equal(ar.geoCountries);
  });

  it('is accessible in every element', async function () {
    this.timeout(30_000);
    const root = await arabicPage();
    for (const el of root.querySelectorAll<Element>('*')) {
      if (el.shadowRoot) expect(el.matches(':state(ready)'), el.localName).to.equal(true);
    }
    // One axe run over them all reads every shadow tree, as one run per element did, without
    // paying axe's setup nine times (this test took 20 s in a full run on two busy cores).
    await expect(root).to.be.accessible();
  });
});
