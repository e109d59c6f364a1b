import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { COUNTER_METRICS } from '../src/elements/live-counter/live-counter.ts';
import { storySrc } from './support/endpoint.ts';
import { caption, controlsFor, darkPage, narrowColumn, pausedOnceReady, pulseElement, rightToLeft, type Args } from './support/render.ts';

const TAG = 'live-counter';
const render = (args: Args) => pulseElement(TAG, args);

const meta: Meta<Args> = {
  title: 'Elements/live-counter',
  component: TAG,
  args: { src: storySrc('quickstats') },
  argTypes: controlsFor(TAG, { metric: Object.keys(COUNTER_METRICS) }),
  render,
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data: the number, its change and the sparkline move every 3 seconds. */
export const Live: Story = { tags: ['state:ready'] };

export const Loading: Story = { tags: ['state:loading'], args: { src: storySrc('quickstats', {}, 'loading') } };

/** The data has no figure for the chosen metric. */
export const Empty: Story = { tags: ['state:empty'], args: { src: storySrc('quickstats', {}, 'empty'), metric: 'subscr' } };

export const ErrorState: Story = { name: 'Error', tags: ['state:error'], args: { src: storySrc('quickstats', {}, 'error') } };

/** The data is two minutes old: the "updated" line turns into a visible notice. */
export const Stale: Story = { tags: ['state:stale'], args: { src: storySrc('quickstats', {}, 'stale') } };

/** The page went offline after the first data: polling pauses until it is back. */
export const Paused: Story = { ...pausedOnceReady(TAG) };

export const Dark: Story = {
  tags: ['state:ready'],
  args: { theme: 'dark' },
  render: (args) => darkPage(render(args)),
};

export const SearchVisitors: Story = { tags: ['state:ready'], args: { metric: 'search' } };

export const LongLabel: Story = {
  tags: ['state:ready'],
  args: { label: 'Readers on the site right now, across the web site, the apps and the newsletter landing pages' },
  render: (args) => narrowColumn(render(args)),
};

export const RightToLeft: Story = {
  tags: ['state:ready'],
  args: { label: 'القراء على الموقع الآن' },
  render: (args) => rightToLeft(render(args)),
};

export const NarrowContainer: Story = {
  tags: ['state:ready'],
  render: (args) => narrowColumn(render(args)),
};

/** Public "who's on now" mode: rounded to tens, shown because the count is above the threshold. */
export const PublicCounterShown: Story = {
  tags: ['state:ready'],
  args: { threshold: 5, round: 10, history: 0, label: 'Reading with you now' },
};

/** Public mode below the threshold: the counter hides itself entirely. */
export const PublicCounterHidden: Story = {
  tags: ['state:empty'],
  args: { threshold: 1_000_000, round: 10, history: 0, label: 'Reading with you now' },
  render: (args) => caption('Below its threshold the public counter is hidden: nothing shows under this line.', render(args)),
};
