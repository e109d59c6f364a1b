/**
 * The decisions every element's frame makes (src/internal/frame.ts), as tables: which address
 * `src` gives or why it cannot be used, which view the data gives, which custom states a view
 * and a snapshot give. The cards and <live-counter> both run them; their browser tests show the
 * result on screen.
 */
import { expect } from '@open-wc/testing';
import { resolveSource, statesOf, viewOf, type State, type View } from '../src/internal/frame.ts';

const BASE = 'https://news.example/section/story.html';
const QUICKSTATS = '/live/quickstats/v4/';

describe('resolveSource: the address to load for src, or why it cannot be used', () => {
  const rows: [string, string, { sites?: boolean; limit?: boolean }, ReturnType<typeof resolveSource>][] = [
    [
      'a path, resolved against the page',
      '/pulse/live/quickstats/v4/?host=a.example',
      {},
      { url: 'https://news.example/pulse/live/quickstats/v4/?host=a.example' },
    ],
    [
      'an absolute address on another origin',
      'https://cache.example/live/quickstats/v4/?host=a.example',
      {},
      { url: 'https://cache.example/live/quickstats/v4/?host=a.example' },
    ],
    ['nothing', '  ', {}, { problem: { term: 'sourceMissing', path: QUICKSTATS } }],
    [
      'another route',
      '/live/referrers/v3/?host=a.example',
      {},
      { problem: { term: 'sourceWrong', path: QUICKSTATS } },
    ],
    [
      'a script address',
      'javascript:alert(1)//live/quickstats/v4/',
      {},
      { problem: { term: 'sourceWrong', path: QUICKSTATS } },
    ],
    ['not an address', 'http://[::1', {}, { problem: { term: 'sourceInvalid', path: QUICKSTATS } }],
    [
      'two addresses without the network view',
      '/live/quickstats/v4/?host=a.example /live/quickstats/v4/?host=b.example',
      {},
      { problem: { term: 'sourceOne', path: QUICKSTATS } },
    ],
    [
      'two addresses with the network view, the same one twice kept once',
      '/live/quickstats/v4/?host=a.example /live/quickstats/v4/?host=b.example /live/quickstats/v4/?host=a.example',
      { sites: true },
      {
        url: 'https://news.example/live/quickstats/v4/?host=a.example https://news.example/live/quickstats/v4/?host=b.example',
      },
    ],
    [
      'more sites than one element merges',
      Array.from({ length: 21 }, (_, site) => `/live/quickstats/v4/?host=${site}.example`).join(' '),
      { sites: true },
      { problem: { term: 'sourceTooMany', path: QUICKSTATS } },
    ],
    [
      'an address the element rewrites',
      '/live/quickstats/v4/?host=a.example',
      { limit: true },
      { url: 'https://news.example/live/quickstats/v4/?host=a.example&limit=5' },
    ],
  ];
  for (const [name, src, { sites = false, limit = false }, expected] of rows)
    it(name, () => {
      const requestUrl = limit ? (url: URL) => new URL(`${url.href}&limit=5`) : undefined;
      expect(resolveSource(src, 'quickstats', BASE, sites, requestUrl)).to.deep.equal(expected);
    });
});

describe('viewOf: what the body shows', () => {
  const rows: [string, Parameters<typeof viewOf>, View][] = [
    ['no data, no error: loading', [false, false, false, false], 'loading'],
    ['no data and an error: the error', [false, false, true, false], 'error'],
    ['data and an error: the data (marked stale by the hub)', [false, true, true, false], 'ready'],
    ['data with nothing to show: empty', [false, true, false, true], 'empty'],
    ['an unusable src, whatever the data: the error', [true, true, false, false], 'error'],
  ];
  for (const [name, args, view] of rows) it(name, () => expect(viewOf(...args)).to.equal(view));
});

describe('statesOf: the custom states of a view', () => {
  const rows: [string, View, { stale: boolean; paused: boolean }, boolean, State[]][] = [
    ['ready', 'ready', { stale: false, paused: false }, false, ['ready']],
    ['ready, stale and paused', 'ready', { stale: true, paused: true }, false, ['ready', 'stale', 'paused']],
    ['an error is never also stale', 'error', { stale: true, paused: false }, false, ['error']],
    ['partial only with data shown', 'ready', { stale: false, paused: false }, true, ['ready', 'partial']],
    ['loading is never partial', 'loading', { stale: false, paused: true }, true, ['loading', 'paused']],
  ];
  for (const [name, view, snapshot, partial, states] of rows)
    it(name, () => expect([...statesOf(view, snapshot, partial)]).to.deep.equal(states));
});
