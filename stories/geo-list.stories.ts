import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { GEO_SEGMENTS } from '../src/elements/geo-list/geo-list.ts';
import { storySrc } from './support/endpoint.ts';
import { controlsFor, darkPage, narrowColumn, pausedOnceReady, pulseElement, rightToLeft, type Args } from './support/render.ts';

const TAG = 'geo-list';
const render = (args: Args) => pulseElement(TAG, args);

const meta: Meta<Args> = {
  title: 'Elements/geo-list',
  component: TAG,
  args: { src: storySrc('top_geo'), segment: 'countries' },
  argTypes: controlsFor(TAG, { segment: Object.keys(GEO_SEGMENTS) }),
  render,
};
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data, by country: names come from Intl.DisplayNames in the page's language. */
export const Countries: Story = { tags: ['state:ready'] };

export const Regions: Story = { tags: ['state:ready'], args: { segment: 'regions' } };

export const Cities: Story = { tags: ['state:ready'], args: { segment: 'cities' } };

export const MetroCodes: Story = { tags: ['state:ready'], args: { segment: 'metro_codes' } };

export const Loading: Story = { tags: ['state:loading'], args: { src: storySrc('top_geo', {}, 'loading') } };

export const Empty: Story = { tags: ['state:empty'], args: { src: storySrc('top_geo', {}, 'empty') } };

export const ErrorState: Story = { name: 'Error', tags: ['state:error'], args: { src: storySrc('top_geo', {}, 'error') } };

/** The data is two minutes old: the "updated" line turns into a visible notice. */
export const Stale: Story = { tags: ['state:stale'], args: { src: storySrc('top_geo', {}, 'stale') } };

/** The page went offline after the first data: polling pauses until it is back. */
export const Paused: Story = { ...pausedOnceReady(TAG) };

export const Dark: Story = {
  tags: ['state:ready'],
  args: { theme: 'dark' },
  render: (args) => darkPage(render(args)),
};

/** Country names, numbers and percentages in Arabic, laid out right to left. */
export const RightToLeft: Story = {
  tags: ['state:ready'],
  render: (args) => rightToLeft(render(args)),
};

export const NarrowContainer: Story = {
  tags: ['state:ready'],
  args: { segment: 'cities', max: 5 },
  render: (args) => narrowColumn(render(args)),
};
