/**
 * The stories every element has, one per state and setting: what differs between elements is
 * only the tag and the route. Each story file spreads these and adds its `state:<name>` tag
 * literally, because Storybook reads tags from the source, not at run time (the smoke test
 * checks the state a story's tag names).
 */
import type { StoryObj } from '@storybook/web-components-vite';
import type { RouteName } from '../../src/api/index.ts';
import { storySrc } from './endpoint.ts';
import { darkPage, narrowColumn, pulseElement, rightToLeft, whenReady, type Args } from './render.ts';

type Story = StoryObj<Args>;

const described = (story: string): Story['parameters'] => ({ docs: { description: { story } } });

export function commonStories(tag: string, route: RouteName) {
  const render = (args: Args) => pulseElement(tag, args);
  let backOnline = () => {};
  return {
    loading: {
      args: { src: storySrc(route, {}, 'loading') },
      parameters: described('The first answer has not come yet.'),
    },
    empty: {
      args: { src: storySrc(route, {}, 'empty') },
      parameters: described('The endpoint answered, with nothing to show.'),
    },
    error: {
      args: { src: storySrc(route, {}, 'error') },
      parameters: described('The endpoint fails and there is no earlier data: the card says why, in words.'),
    },
    stale: {
      args: { src: storySrc(route, {}, 'stale') },
      parameters: described('The data is two minutes old: the "updated" line turns into a visible notice.'),
    },
    paused: {
      parameters: described('The page went offline after the first data: polling pauses until it is back.'),
      beforeEach: () => () => backOnline(),
      play: async ({ canvasElement }) => {
        await whenReady(canvasElement.querySelector(tag));
        backOnline = goOffline();
      },
    },
    dark: {
      args: { theme: 'dark' },
      render: (args) => darkPage(render(args)),
    },
    narrow: {
      render: (args) => narrowColumn(render(args)),
    },
    rightToLeft: {
      parameters: described(
        "Arabic, right to left: numbers, names and bars follow the page's language and direction.",
      ),
      render: (args) => rightToLeft(render(args)),
    },
  } satisfies Record<string, Story>;
}

/** Makes the page look offline to the poll hub; the returned function brings it back. */
export function goOffline(): () => void {
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
  dispatchEvent(new Event('offline'));
  return () => {
    delete (navigator as { onLine?: boolean }).onLine;
    dispatchEvent(new Event('online'));
  };
}
