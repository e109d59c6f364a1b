import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { HISTOGRAMS } from '../src/elements/engagement-histogram/histogram-scale.ts';
import '../src/elements/engagement-histogram/engagement-histogram.ts';
import { storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'engagement-histogram';
const common = commonStories(TAG, 'quickstats');

const meta: Meta<Args> = {
  title: 'Elements/engagement-histogram',
  ...elementMeta(
    TAG,
    { src: storySrc('quickstats'), histogram: 'engaged_time' },
    { histogram: Object.keys(HISTOGRAMS) },
  ),
};
export default meta;

type Story = StoryObj<Args>;

/** Live engaged time: seconds, then minutes; the solid line is the median, the dashed one the average. */
export const EngagedTime: Story = { tags: ['state:ready'] };
/** Scroll depth in 10 % steps, with the table shown. */
export const ScrollWithTable: Story = {
  tags: ['state:ready'],
  args: { histogram: 'scroll', 'show-table': true },
};
/** Quickstats DOM load time: milliseconds from the service, shown in seconds. */
export const DomLoad: Story = { tags: ['state:ready'], args: { histogram: 'domload' } };
/** Minutes per visit on one page (`path=` on quickstats). */
export const VisitsOnOnePage: Story = {
  tags: ['state:ready'],
  args: { histogram: 'visit', src: storySrc('quickstats', { path: '/news/' }) },
};
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };
