import type { Meta, StoryObj } from '@storybook/web-components-vite';
// The newsroom features, as the full bundle has them: the network view, detail columns, and the editors' tools for `tools`.
import '../src/newsroom.ts';
import '../src/elements/top-pages/top-pages.ts';
import { networkSrc, storySrc } from './support/endpoint.ts';
import { caption, elementMeta, pulseElement, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'top-pages';
const render = (args: Args) => pulseElement(TAG, args);
const common = commonStories(TAG, 'toppages');

const meta: Meta<Args> = { title: 'Elements/top-pages', ...elementMeta(TAG, { src: storySrc('toppages') }) };
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data: rows move and rank changes appear every 3 seconds. */
export const Live: Story = { tags: ['state:ready'] };
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };

export const LongTitles: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5 }, 'long-titles') },
};

export const RightToLeftTitles: Story = {
  ...common.rightToLeft,
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5 }, 'rtl-titles') },
};

export const NarrowContainer: Story = {
  ...common.narrow,
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5 }) },
};

/** Landing pages hidden; the element reads more pages so it still shows ten rows. */
export const ArticlesOnly: Story = { tags: ['state:ready'], args: { 'articles-only': true } };

/** Every optional column, on data that carries them (`all_platforms`, `loyalty`, `types`). */
export const AllColumns: Story = {
  tags: ['state:ready'],
  args: {
    src: storySrc('toppages', { limit: 5, all_platforms: 1, loyalty: 1, types: 1 }),
    columns: 'sections authors engaged-time sources platform loyalty type',
  },
};

export const FiveRowsSiteNameStripped: Story = {
  tags: ['state:ready'],
  args: { max: 5, 'strip-title': '' },
  render: (args) =>
    caption('max="5" and strip-title: " | Site name" endings removed from titles.', render(args)),
};

/** Custom metrics asked for in `src` (`metrics=_pw,_rv,_cmp`), one column each: titled by `metric-names`, enum values named by `metric-labels`. */
export const CustomMetrics: Story = {
  tags: ['state:ready'],
  args: {
    src: storySrc('toppages', { limit: 5, metrics: '_pw,_rv,_cmp' }),
    'metric-names': JSON.stringify({ _pw: 'Paywall', _rv: 'Reader value', _cmp: 'Campaign' }),
    'metric-labels': JSON.stringify({ _pw: ['free', 'metered', 'registration', 'hard'] }),
  },
};

/** Where readers of each page go next (`now_on=1` in `src`, the `now-on` column), linked. */
export const ReadNext: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5, now_on: 1 }), columns: 'now-on' },
};

/** Filters in `src` go to the service as they are: two sections, and pages with at least 5 people. */
export const SeveralSections: Story = {
  tags: ['state:ready'],
  args: {
    src: storySrc('toppages', { limit: 5, section: 'Science,Business', exclude_people: 5 }),
    columns: 'sections',
  },
  render: (args) => caption('section=Science,Business&exclude_people=5 in src.', render(args)),
};

/** Two authors, and pages with at least 5 people. */
export const SeveralAuthors: Story = {
  tags: ['state:ready'],
  args: {
    src: storySrc('toppages', { limit: 5, author: 'Priya Raman,Mei Ling', exclude_people: 5 }),
    columns: 'authors',
  },
  render: (args) => caption('author=Priya Raman,Mei Ling&exclude_people=5 in src.', render(args)),
};

/** Each page's referrers: how many sites send readers (`num_refs`) and the top three (`toprefs`), under friendly names. */
export const Referrers: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5 }), columns: 'referrers' },
};

/** The network view: two sites in `src`, one ranking by people, each row naming its site (`site-names`). */
export const NetworkView: Story = {
  tags: ['state:ready'],
  args: {
    src: networkSrc('toppages', { limit: 5 }),
    'site-names': JSON.stringify({ 'example.com': 'Example Daily', 'news.example.org': 'News Example' }),
  },
};

/** One of the two sites fails: the other's pages stay, a note names the missing site (`:state(partial)`). */
export const NetworkOneSiteFailing: Story = {
  tags: ['state:ready'],
  args: { src: networkSrc('toppages', { limit: 5 }, true) },
};

/** A public "most read" list: ranks and titles only. */
export const HideNumbers: Story = {
  tags: ['state:ready'],
  args: { max: 5, 'hide-numbers': true, 'strip-title': '' },
};

/** Clicks `part` in the element's shadow root once it first shows data: what a reader would do. */
function pressOnFirstData(part: string) {
  return (args: Args) => {
    const element = render(args);
    element.addEventListener(
      'pulse-data',
      () => {
        void (element as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete.then(() =>
          element.shadowRoot!.querySelector<HTMLButtonElement>(`[part=${part}]`)?.click(),
        );
      },
      { once: true },
    );
    return element;
  };
}

/** Frozen (`tools="freeze"`): the rows hold still while polling goes on, and the card counts the updates waiting; press Freeze again for the latest. */
export const Frozen: Story = {
  tags: ['state:ready'],
  args: { max: 5, tools: 'freeze' },
  render: pressOnFirstData('freeze-button'),
};

/** The first row opened (the + button, with `tools="drill-down"`): that page's own people, sources, platforms and referrers, polled while open. */
export const DrillDown: Story = {
  tags: ['state:ready'],
  args: { max: 5, tools: 'drill-down' },
  render: pressOnFirstData('expand'),
};
