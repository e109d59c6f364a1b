import type { Meta, StoryObj } from '@storybook/web-components-vite';
import '../src/elements/headline-tests/headline-tests.ts';
import { storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories, goOffline } from './support/states.ts';

const TAG = 'headline-tests';
const common = commonStories(TAG, 'raw_data');

// Five tests per page keeps the stories light and shows the page controls; the default is 25.
const args = { src: storySrc('raw_data'), tz: 'Europe/Paris', 'page-size': 5 };
const meta: Meta<Args> = {
  title: 'Elements/headline-tests',
  ...elementMeta(TAG, args, { status: ['', 'active', 'archived', 'all'] }),
};
export default meta;

type Story = StoryObj<Args>;

/** The simulator's tests of the last seven days, loaded once (raw data is never polled). */
export const LastSevenDays: Story = { tags: ['state:ready'] };
/** The element's default page: 25 tests. */
export const TwentyFivePerPage: Story = { tags: ['state:ready'], args: { 'page-size': 25 } };
export const ActiveOnly: Story = { tags: ['state:ready'], args: { status: 'active' } };
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
/** Offline before the first load: the element waits for the page to be back online. */
export const Paused: Story = {
  tags: ['state:paused'],
  beforeEach: () => goOffline(),
};
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };
