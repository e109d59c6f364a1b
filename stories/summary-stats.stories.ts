import type { Meta, StoryObj } from '@storybook/web-components-vite';
import '../src/elements/summary-stats/summary-stats.ts';
import { storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'summary-stats';
const KEYS = { keys: 'time_spent,pagetimer,page_height,read,referrer,new' };
const common = commonStories(TAG, 'summary');

const meta: Meta<Args> = {
  title: 'Elements/summary-stats',
  ...elementMeta(TAG, { src: storySrc('summary', KEYS) }),
};
export default meta;

type Story = StoryObj<Args>;

/** Live numeric and categorical summaries of the keys named in `src`. */
export const Live: Story = { tags: ['state:ready'] };
/** Categorical keys only, ten values each. */
export const TopValues: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('summary', { keys: 'title,referrer' }), max: 10 },
};
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = {
  ...common.stale,
  tags: ['state:stale'],
  args: { src: storySrc('summary', KEYS, 'stale') },
};
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };
