import type { Meta, StoryObj } from '@storybook/web-components-vite';
import '../src/elements/traffic-sources/traffic-sources.ts';
import { storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'traffic-sources';
const common = commonStories(TAG, 'quickstats');

const meta: Meta<Args> = {
  title: 'Elements/traffic-sources',
  ...elementMeta(TAG, { src: storySrc('quickstats') }),
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data: the six sources of everyone on the site, largest first. */
export const Live: Story = { tags: ['state:ready'] };
/** Only the sources an editor watches. */
export const ChosenSources: Story = { tags: ['state:ready'], args: { sources: 'search social links' } };
/** One page's visitors (`path=` on quickstats). */
export const OnePage: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('quickstats', { path: '/news/' }) },
};
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };
