import { setCustomElementsManifest, type Preview } from '@storybook/web-components-vite';
import { html } from 'lit';
import manifest from '../custom-elements.json';
import { configure } from '../src/client/index.ts';
import { storyFetch } from '../stories/support/endpoint.ts';

// Controls and autodocs come from the same manifest package.json points at.
setCustomElementsManifest(manifest);

// Every story's elements share the page's one hub, fed by the in-page simulated endpoint.
configure({ fetch: storyFetch });

/** The languages besides English, each loaded when first picked (importing one registers it). */
const LOCALES = import.meta.glob<{ default: { $code: string; $name: string } }>('../src/locales/*.ts');
const LANGUAGES: Record<string, string> = {
  ar: 'العربية',
  de: 'Deutsch',
  es: 'Español',
  fr: 'Français',
  it: 'Italiano',
  ja: '日本語',
  nl: 'Nederlands',
  pl: 'Polski',
  pt: 'Português',
};

const preview: Preview = {
  tags: ['autodocs'],
  globalTypes: {
    locale: {
      description:
        'The language of the elements: sets lang on the story root (Arabic also turns it right to left)',
      toolbar: {
        title: 'Language',
        icon: 'globe',
        dynamicTitle: true,
        items: [
          { value: '', title: 'English (page default)' },
          ...Object.entries(LANGUAGES).map(([value, title]) => ({ value, title })),
        ],
      },
    },
  },
  initialGlobals: { locale: '' },
  decorators: [
    (story, { globals }) => {
      const code = String(globals.locale ?? '');
      if (!code) return story();
      void LOCALES[`../src/locales/${code}.ts`]?.();
      return html`<div lang=${code}>${story()}</div>`;
    },
  ],
  parameters: {
    controls: { expanded: true, matchers: { color: /(background|color)$/i } },
    layout: 'padded',
    a11y: { test: 'error' },
  },
};
export default preview;
