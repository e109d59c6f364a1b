/**
 * `npm run build:lib`: the npm package's JavaScript, one file per entry of package.json
 * "exports" (shared code in dist/chunks/). Dependencies stay imports for the app's bundler to
 * resolve once; the CDN files (scripts/build-cdn.mjs) are the self-contained alternative.
 * Declarations come from `tsc -p tsconfig.lib.json`.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { defineConfig } from 'vite';

/** Entry name (dist/<name>.js) -> source. Browser entries never reach src/server (a test checks). */
export const LIB_ENTRIES = {
  index: 'src/index.ts',
  'live-counter': 'src/elements/live-counter/live-counter.ts',
  'top-pages': 'src/elements/top-pages/top-pages.ts',
  'geo-list': 'src/elements/geo-list/geo-list.ts',
  'referrer-bars': 'src/elements/referrer-bars/referrer-bars.ts',
  client: 'src/client/index.ts',
  simulator: 'src/simulator/index.ts',
  server: 'src/server/index.ts',
} as const;

/** Entries that only run in Node (the "node" condition in package.json "exports"). */
export const NODE_ONLY_ENTRIES: readonly (keyof typeof LIB_ENTRIES)[] = ['server'];

const dependencies = Object.keys(JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')).dependencies);
const external = (id: string) =>
  id.startsWith('node:') || builtinModules.includes(id)
  || dependencies.some((name) => id === name || id.startsWith(`${name}/`));

export default defineConfig({
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: false,
    minify: false,
    lib: { entry: LIB_ENTRIES, formats: ['es'] },
    rolldownOptions: {
      external,
      output: { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
});
