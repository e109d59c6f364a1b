import { defineConfig } from 'vite';

/**
 * Storybook's Vite config, kept apart from the root one (which builds the library and may mount
 * the cache endpoint as a dev-server plugin): the stories need nothing but the language level.
 */
export default defineConfig({
  build: { target: 'es2022' },
});
