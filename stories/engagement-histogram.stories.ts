import type { Meta, StoryObj } from '@storybook/web-components-vite';
import '../src/elements/engagement-histogram/engagement-histogram.ts';
import { HISTOGRAMS } from '../src/elements/engagement-histogram/histogram-scale.ts';
import { storySrc } from './support/endpoint.ts';
import { controlsFor, pulseElement, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'engagement-histogram';
const common = commonStories(TAG, 'quickstats');

const meta: Meta<Args> = {
  title: 'Elements/engagement-histogram',
  component: TAG,
  args: { src: storySrc('quickstats') },
  argTypes: controlsFor(TAG, { histogram: Object.keys(HISTOGRAMS) }),
  render: (args) => pulseElement(TAG, args),
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data: engaged time of the people on the site now. */
export const EngagedTime: Story = { tags: ['state:ready'] };
export const ScrollDepth: Story = { tags: ['state:ready'], args: { histogram: 'scroll' } };
export const PageLoadTime: Story = { tags: ['state:ready'], args: { histogram: 'domload' } };
/** The numbers behind the columns, as a table. */
export const WithTable: Story = { tags: ['state:ready'], args: { 'show-table': true } };
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };
