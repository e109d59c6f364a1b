import { setCustomElementsManifest, type Preview } from '@storybook/web-components-vite';
import manifest from '../custom-elements.json';

// Controls and autodocs come from the same manifest package.json points at.
setCustomElementsManifest(manifest);

const preview: Preview = {
  tags: ['autodocs'],
  parameters: {
    controls: { expanded: true, matchers: { color: /(background|color)$/i } },
    layout: 'padded',
    a11y: { test: 'error' },
  },
};
export default preview;
