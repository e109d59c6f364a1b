import { setCustomElementsManifest, type Preview } from '@storybook/web-components-vite';
import manifest from '../custom-elements.json';
import { configure } from '../src/client/index.ts';
import { storyFetch } from '../stories/support/endpoint.ts';

// Controls and autodocs come from the same manifest package.json points at.
setCustomElementsManifest(manifest);

// Every story's elements share the page's one hub, fed by the in-page simulated endpoint.
configure({ fetch: storyFetch });

const preview: Preview = {
  tags: ['autodocs'],
  parameters: {
    controls: { expanded: true, matchers: { color: /(background|color)$/i } },
    layout: 'padded',
    a11y: { test: 'error' },
  },
};
export default preview;
