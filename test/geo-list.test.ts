import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';
import '../src/locales/fr.ts';
import type { GeoList } from '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { topGeo, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour } from './helpers/browser-states.ts';

async function geoList(body = topGeo(), attributes = '', lang = 'en') {
  const feed = { body };
  const { clock } = freshHub(() => reply(clock, feed.body));
  const root = fixtureSync(html`<div lang=${lang}></div>`);
  root.innerHTML = `<geo-list src="${URLS.geo}" ${attributes}></geo-list>`;
  const el = root.firstElementChild as GeoList;
  await settleElements(root);
  const column = (part: string) =>
    [...el.shadowRoot!.querySelectorAll(`[part=${part}]`)].map((node) =>
      node.textContent!.replace(/\s+/g, ' ').trim(),
    );
  const next = async (body: ReturnType<typeof topGeo>) => {
    feed.body = body;
    await clock.toNextTick();
    await el.updateComplete;
  };
  return { el, column, next };
}

describe('<geo-list>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: 'geo-list',
    src: URLS.geo,
    ready: topGeo(),
    empty: topGeo({}, 0),
    readyText: 'United States',
  });

  it('lists countries by localized name with counts and shares of the total as text and bar', async () => {
    const { el, column } = await geoList(topGeo({ FR: 30, US: 50, DE: 20 }, 200));
    expect(el.shadowRoot!.querySelector('ol')!.getAttribute('aria-labelledby')).to.equal('label');
    expect(column('name')).to.deep.equal(['United States', 'France', 'Germany']);
    expect(column('count')).to.deep.equal(['50 visitors', '30 visitors', '20 visitors']);
    expect(column('share')).to.deep.equal(['25%', '15%', '10%']);
    const fills = [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part=bar-fill]')].map((fill) =>
      fill.style.getPropertyValue('--pulse-fill'),
    );
    expect(fills).to.deep.equal(['0.25', '0.15', '0.1']);
  });

  it('names countries and regions in the inherited language, when it has a translation', async () => {
    const { el, column } = await geoList(topGeo({ DE: 5, XX: 1 }), '', 'fr');
    expect(column('name')).to.deep.equal(['Allemagne', 'XX']);
    el.segment = 'regions';
    await el.updateComplete;
    expect(column('name')).to.deep.equal(['CA, États-Unis', 'IDF, France', 'NY, États-Unis']);
  });

  it('shows cities and metro areas for those segments, with a matching label', async () => {
    const { el, column } = await geoList(topGeo(), 'segment="cities"');
    expect(column('name')).to.deep.equal(['Paris', 'San Francisco']);
    expect(column('label')).to.deep.equal(['Visitors by city']);
    el.segment = 'metro_codes';
    await el.updateComplete;
    expect(column('name')).to.deep.equal(['Metro area 807', 'Metro area 501']);
  });

  it('max limits the places shown', async () => {
    const { column } = await geoList(topGeo(), 'max="2"');
    expect(column('name')).to.deep.equal(['United States', 'France']);
  });

  it('announces a new leading place politely', async () => {
    const { column, next } = await geoList(topGeo({ US: 50, FR: 30 }));
    expect(column('live')).to.deep.equal(['']);
    await next(topGeo({ US: 20, FR: 30 }));
    expect(column('live')).to.deep.equal(['Most visitors now from France']);
  });

  it('renders hostile city names as text', async () => {
    const hostile = topGeo();
    hostile.geo.cities = { '<img src=x onerror=alert(1)>': 3 };
    const { el, column } = await geoList(hostile, 'segment="cities"');
    expect(column('name')).to.deep.equal(['<img src=x onerror=alert(1)>']);
    expect(el.shadowRoot!.querySelectorAll('img')).to.have.length(0);
  });
});
