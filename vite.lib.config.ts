/**
 * `npm run build:lib`: the npm package's JavaScript, one file per entry of package.json
 * "exports" (shared code in dist/chunks/). Dependencies stay imports for the app's bundler to
 * resolve once; the CDN files (scripts/build-cdn.mjs) are the self-contained alternative.
 * Declarations come from `tsc -p tsconfig.lib.json`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { defineConfig } from 'vite';
import { compactTemplates } from './scripts/compact-templates.ts';

/**
 * The element folders. Each holds `<name>.component.ts` (the class, registering nothing) and
 * `<name>.ts` (registers it): the entry for the page that wants that element only.
 */
const ELEMENTS = readdirSync(new URL('src/elements/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/**
 * The languages besides English (which the elements bundle): `src/locales/<code>.ts`, each an
 * entry that registers its translation (`pulse-widgets/locales/de`, `dist/cdn/locales/de.js`).
 */
export const LOCALE_ENTRIES: readonly string[] = readdirSync(new URL('src/locales/', import.meta.url))
  .filter((file) => file.endsWith('.ts') && file !== 'en.ts')
  .map((file) => `locales/${file.slice(0, -'.ts'.length)}`)
  .sort();

/** Entry name (dist/<name>.js) -> source. Browser entries never reach src/server (a test checks). */
export const LIB_ENTRIES: Record<string, string> = {
  index: 'src/index.ts',
  classes: 'src/classes.ts',
  ...Object.fromEntries(ELEMENTS.map((name) => [name, `src/elements/${name}/${name}.ts`])),
  ...Object.fromEntries(LOCALE_ENTRIES.map((name) => [name, `src/${name}.ts`])),
  newsroom: 'src/newsroom.ts',
  client: 'src/client/index.ts',
  simulator: 'src/simulator/index.ts',
  server: 'src/server/index.ts',
};

export const ELEMENT_ENTRIES: readonly string[] = ELEMENTS;

/** Entries that only run in Node (the "node" condition in package.json "exports"). */
export const NODE_ONLY_ENTRIES: readonly string[] = ['server'];

/** Executables (package.json "bin"), compiled like the entries and never imported. */
export const BIN_ENTRIES: Record<string, string> = { cli: 'src/server/cli.ts' };

const packageJson = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const dependencies = Object.keys(packageJson.dependencies);
const external = (id: string) =>
  id.startsWith('node:') ||
  builtinModules.includes(id) ||
  dependencies.some((name) => id === name || id.startsWith(`${name}/`));

export default defineConfig({
  plugins: [compactTemplates()],
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: false,
    minify: false,
    lib: { entry: { ...LIB_ENTRIES, ...BIN_ENTRIES }, formats: ['es'] },
    rolldownOptions: {
      external,
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        banner: (chunk) => (chunk.isEntry && chunk.name in BIN_ENTRIES ? '#!/usr/bin/env node' : ''),
      },
    },
  },
  // The one place the version is stamped (src/server/version.ts reads it).
  define: { __PULSE_WIDGETS_VERSION__: JSON.stringify(packageJson.version) },
});
