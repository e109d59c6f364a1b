import type { StorybookConfig } from '@storybook/web-components-vite';

/**
 * Written by hand: `storybook init` cannot run on this registry (STACK.md gotcha 5). Every
 * Storybook package is pinned to the same version.
 */
const config: StorybookConfig = {
  stories: ['../stories/**/*.stories.ts'],
  addons: ['@storybook/addon-docs', '@storybook/addon-a11y'],
  framework: {
    name: '@storybook/web-components-vite',
    // Our own Vite config: the root one builds the library and may mount the cache endpoint.
    options: { builder: { viteConfigPath: '.storybook/vite.config.ts' } },
  },
  core: { disableTelemetry: true, disableWhatsNewNotifications: true },
};
export default config;
