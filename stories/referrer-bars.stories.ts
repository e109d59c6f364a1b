import type { Meta, StoryObj } from '@storybook/web-components-vite';
// The newsroom features, as the full bundle has them: the network view, detail columns, and the editors' tools for `tools`.
import '../src/newsroom.ts';
import '../src/elements/referrer-bars/referrer-bars.ts';
import { networkSrc, storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'referrer-bars';
const common = commonStories(TAG, 'referrers');

const meta: Meta<Args> = {
  title: 'Elements/referrer-bars',
  ...elementMeta(TAG, { src: storySrc('referrers') }),
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data: well-known domains under friendly names, dark social for no referrer. */
export const Live: Story = { tags: ['state:ready'] };
/** Referrers added up by kind: search engines, social networks, news aggregators, AI assistants. */
export const Grouped: Story = { tags: ['state:ready'], args: { grouped: true } };
/** Grouped by the traffic sources the service reports itself (`by_type=1`). */
export const GroupedByTrafficSource: Story = {
  tags: ['state:ready'],
  args: { grouped: true, src: storySrc('referrers', { by_type: 1 }) },
};
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'], args: { max: 5 } };

/** The network view: both demo sites in `src`, counts added up. */
export const NetworkView: Story = { tags: ['state:ready'], args: { src: networkSrc('referrers') } };

/** One of the two sites fails: the other's counts stay, a note names the missing site (`:state(partial)`). */
export const NetworkOneSiteFailing: Story = {
  tags: ['state:ready'],
  args: { src: networkSrc('referrers', {}, true) },
};
