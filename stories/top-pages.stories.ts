import type { Meta, StoryObj } from '@storybook/web-components-vite';
import '../src/elements/top-pages/top-pages.ts';
import { storySrc } from './support/endpoint.ts';
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

export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'], args: { src: storySrc('toppages', { limit: 5 }) } };

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
