import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { HISTORY_METRICS, HISTORY_RANGES } from '../src/api/index.ts';
import '../src/elements/traffic-chart/traffic-chart.ts';
import { storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = 'traffic-chart';
const common = commonStories(TAG, 'quickstats');

const meta: Meta<Args> = {
  title: 'Elements/traffic-chart',
  ...elementMeta(TAG, { src: storySrc('quickstats') }, { metric: HISTORY_METRICS, range: HISTORY_RANGES }),
  parameters: {
    docs: {
      description: {
        component:
          "Today since local midnight against the typical band. The history comes from the simulator's model (35 days backfilled at once, as the cache endpoint does in demo mode); the live point moves every 3 s.",
      },
    },
  },
};
export default meta;

type Story = StoryObj<Args>;

/** The day so far against the typical band, the live point moving every 3 seconds. */
export const Live: Story = { tags: ['state:ready'] };
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
/** The live data has no figure for the chosen metric. */
export const Empty: Story = {
  ...common.empty,
  tags: ['state:empty'],
  args: { ...common.empty.args, metric: 'subscr' },
};
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = {
  ...common.rightToLeft,
  tags: ['state:ready'],
  args: { label: 'القراء اليوم' },
};
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };

/** Visitors from search, against their own typical band. */
export const SearchVisitors: Story = { tags: ['state:ready'], args: { metric: 'search' } };

/** The last 7 days in 5-minute points, each against the same weekday and time of the 4 weeks before. */
export const LastSevenDays: Story = { tags: ['state:ready'], args: { range: '7d' } };

/** A cache that has recorded nothing yet: the day and the band fill in as it records; the sentence says there is no typical day yet. */
export const NoTypicalYet: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('quickstats', {}, 'new-history') },
};

/** Behind a cache that keeps no history: the live figure, and why the day so far is missing. */
export const HistoryUnavailable: Story = {
  tags: ['state:ready'],
  args: { src: storySrc('quickstats', {}, 'no-history') },
};
