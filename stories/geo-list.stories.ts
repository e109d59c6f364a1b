import type { Meta, StoryObj } from '@storybook/web-components-vite';
// The newsroom features, as the full bundle has them: the network view, detail columns, and the editors' tools for `tools`.
import '../src/newsroom.ts';
import { GEO_SEGMENTS } from '../src/elements/geo-list/geo-list.ts';
import { networkSrc, storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'geo-list';
const common = commonStories(TAG, 'top_geo');

const meta: Meta<Args> = {
  title: 'Elements/geo-list',
  ...elementMeta(
    TAG,
    { src: storySrc('top_geo'), segment: 'countries' },
    { segment: Object.keys(GEO_SEGMENTS) },
  ),
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data, by country: names come from Intl.DisplayNames in the page's language. */
export const Countries: Story = { tags: ['state:ready'] };
export const Regions: Story = { tags: ['state:ready'], args: { segment: 'regions' } };
export const Cities: Story = { tags: ['state:ready'], args: { segment: 'cities' } };
export const MetroCodes: Story = { tags: ['state:ready'], args: { segment: 'metro_codes' } };
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
  args: { segment: 'cities', max: 5 },
};

/** The network view: both demo sites in `src`, counts added up. */
export const NetworkView: Story = { tags: ['state:ready'], args: { src: networkSrc('top_geo') } };

/** One of the two sites fails: the other's counts stay, a note names the missing site (`:state(partial)`). */
export const NetworkOneSiteFailing: Story = {
  tags: ['state:ready'],
  args: { src: networkSrc('top_geo', {}, true) },
};
