import type { Meta, StoryObj } from '@storybook/web-components-vite';
// Before the element is defined, so every counter has `compare` and the network view (as the full bundle does).
import '../src/elements/live-counter/live-counter-typical.ts';
import '../src/newsroom.ts';
import { COUNTER_METRICS } from '../src/elements/live-counter/live-counter.ts';
import { networkSrc, storySrc } from './support/endpoint.ts';
import { caption, elementMeta, pulseElement, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'live-counter';
const render = (args: Args) => pulseElement(TAG, args);
const common = commonStories(TAG, 'quickstats');

const meta: Meta<Args> = {
  title: 'Elements/live-counter',
  ...elementMeta(TAG, { src: storySrc('quickstats') }, { metric: Object.keys(COUNTER_METRICS) }),
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data: the number, its change and the sparkline move every 3 seconds. */
export const Live: Story = { tags: ['state:ready'] };
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
/**
 * A metric the counter does not know (a figure of the data it cannot read): it says so. A known
 * figure the answer lacks shows "—" instead, as every element shows a missing value.
 */
export const Empty: Story = {
  ...common.empty,
  tags: ['state:empty'],
  args: { ...common.empty.args, metric: 'paywall_hits' as Args['metric'] },
};
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = {
  ...common.rightToLeft,
  tags: ['state:ready'],
  args: { label: 'القراء على الموقع الآن' },
};
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };

export const SearchVisitors: Story = { tags: ['state:ready'], args: { metric: 'search' } };

/** `compare="typical"`: how the number compares with a typical day at this time, and a sparkline of the day so far. */
export const ComparedWithTypical: Story = { tags: ['state:ready'], args: { compare: 'typical' } };

export const LongLabel: Story = {
  ...common.narrow,
  tags: ['state:ready'],
  args: {
    label: 'Readers on the site right now, across the web site, the apps and the newsletter landing pages',
  },
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
  render: (args) =>
    caption('Below its threshold the public counter is hidden: nothing shows under this line.', render(args)),
};

/** The network view: both demo sites in `src`, counts added up. */
export const NetworkView: Story = { tags: ['state:ready'], args: { src: networkSrc('quickstats') } };

/** One of the two sites fails: the other's counts stay, a note names the missing site (`:state(partial)`). */
export const NetworkOneSiteFailing: Story = {
  tags: ['state:ready'],
  args: { src: networkSrc('quickstats', {}, true) },
};
