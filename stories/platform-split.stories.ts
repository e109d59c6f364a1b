import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { BREAKDOWNS } from '../src/elements/platform-split/platform-split.ts';
import { storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'platform-split';
const common = commonStories(TAG, 'quickstats');

const meta: Meta<Args> = {
  title: 'Elements/platform-split',
  ...elementMeta(
    TAG,
    { src: storySrc('quickstats'), breakdown: 'platform' },
    { breakdown: Object.keys(BREAKDOWNS) },
  ),
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data by platform: the element adds `all_platforms=1` itself; unnamed letters show as themselves. */
export const Platforms: Story = { tags: ['state:ready'] };
/** Only those engaging now (`platform_engaged`). */
export const EngagedPlatforms: Story = {
  tags: ['state:ready'],
  args: { breakdown: 'platform_engaged', max: 4 },
};
/** New, returning and loyal visitors (the element adds `loyalty=1`). */
export const Loyalty: Story = { tags: ['state:ready'], args: { breakdown: 'loyalty' } };
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = {
  ...common.narrow,
  tags: ['state:ready'],
  args: { breakdown: 'loyalty' },
};
