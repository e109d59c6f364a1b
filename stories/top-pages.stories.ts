import type { Meta, StoryObj } from '@storybook/web-components-vite';
import '../src/elements/top-pages/top-pages.ts';
import { storySrc } from './support/endpoint.ts';
import { caption, controlsFor, darkPage, narrowColumn, pausedOnceReady, pulseElement, rightToLeft, type Args } from './support/render.ts';

const TAG = 'top-pages';
const render = (args: Args) => pulseElement(TAG, args);

const meta: Meta<Args> = {
  title: 'Elements/top-pages',
  component: TAG,
  args: { src: storySrc('toppages') },
  argTypes: controlsFor(TAG),
  render,
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data: rows move and rank changes appear every 3 seconds. */
export const Live: Story = { tags: ['state:ready'] };

export const Loading: Story = { tags: ['state:loading'], args: { src: storySrc('toppages', {}, 'loading') } };

export const Empty: Story = { tags: ['state:empty'], args: { src: storySrc('toppages', {}, 'empty') } };

export const ErrorState: Story = { name: 'Error', tags: ['state:error'], args: { src: storySrc('toppages', {}, 'error') } };

/** The data is two minutes old: the "updated" line turns into a visible notice. */
export const Stale: Story = { tags: ['state:stale'], args: { src: storySrc('toppages', {}, 'stale') } };

/** The page went offline after the first data: polling pauses until it is back. */
export const Paused: Story = { ...pausedOnceReady(TAG) };

export const Dark: Story = {
  tags: ['state:ready'],
  args: { theme: 'dark' },
  render: (args) => darkPage(render(args)),
};

export const LongTitles: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5 }, 'long-titles') },
};

export const RightToLeftTitles: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5 }, 'rtl-titles') },
  render: (args) => rightToLeft(render(args)),
};

export const NarrowContainer: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('toppages', { limit: 5 }) },
  render: (args) => narrowColumn(render(args)),
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
  render: (args) => caption('max="5" and strip-title: " | Site name" endings removed from titles.', render(args)),
};
