import type { Meta, StoryObj } from '@storybook/web-components-vite';
import '../src/elements/referrer-bars/referrer-bars.ts';
import { storySrc } from './support/endpoint.ts';
import { controlsFor, darkPage, narrowColumn, pausedOnceReady, pulseElement, rightToLeft, type Args } from './support/render.ts';

const TAG = 'referrer-bars';
const render = (args: Args) => pulseElement(TAG, args);

const meta: Meta<Args> = {
  title: 'Elements/referrer-bars',
  component: TAG,
  args: { src: storySrc('referrers') },
  argTypes: controlsFor(TAG),
  render,
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

export const Loading: Story = { tags: ['state:loading'], args: { src: storySrc('referrers', {}, 'loading') } };

export const Empty: Story = { tags: ['state:empty'], args: { src: storySrc('referrers', {}, 'empty') } };

export const ErrorState: Story = { name: 'Error', tags: ['state:error'], args: { src: storySrc('referrers', {}, 'error') } };

/** The data is two minutes old: the "updated" line turns into a visible notice. */
export const Stale: Story = { tags: ['state:stale'], args: { src: storySrc('referrers', {}, 'stale') } };

/** The page went offline after the first data: polling pauses until it is back. */
export const Paused: Story = { ...pausedOnceReady(TAG) };

export const Dark: Story = {
  tags: ['state:ready'],
  args: { theme: 'dark' },
  render: (args) => darkPage(render(args)),
};

export const RightToLeft: Story = {
  tags: ['state:ready'],
  render: (args) => rightToLeft(render(args)),
};

export const NarrowContainer: Story = {
  tags: ['state:ready'],
  args: { max: 5 },
  render: (args) => narrowColumn(render(args)),
};
