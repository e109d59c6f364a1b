/**
 * The CDN modules, for pages with no build step (CMS templates, intranet pages):
 *   dist/cdn/pulse-widgets.js    registers every element
 *   dist/cdn/<element>.js        registers that element only
 *   dist/cdn/locales/<code>.js   registers a language (German: locales/de.js) for the elements of
 *                                any of the files above, loaded beside them as its own script
 *   dist/cdn/pulse-widgets.css   the elements' boxes before their script has run, for the page to
 *                                link (src/internal/undefined-sizes.ts): nothing moves when they fill
 * Each file is one self-contained, minified ES module: lit and the poll hub are inside,
 * so a page needs one <script type="module"> and nothing else. Two of them on one page still
 * share one poll hub (it lives on globalThis).
 *
 *   node --import tsx scripts/build-cdn.mjs [folder [name,…]]   (npm run build:cdn: every file into dist/cdn)
 */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { ELEMENT_ENTRIES, LIB_ENTRIES, LOCALE_ENTRIES } from '../vite.lib.config.ts';
import { undefinedSizesCss } from '../src/internal/undefined-sizes.ts';
import { compactTemplates } from './compact-templates.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CDN_DIR = `${ROOT}dist/cdn`;

/** `{ name, entry }` of every CDN file: the all-elements one first, then one per element and one per language (the library's entries). */
export function cdnEntries() {
  return [
    { name: 'pulse-widgets', entry: `${ROOT}${LIB_ENTRIES.index}` },
    ...[...ELEMENT_ENTRIES, ...LOCALE_ENTRIES].map((name) => ({
      name,
      entry: `${ROOT}${LIB_ENTRIES[name]}`,
    })),
  ];
}

/**
 * Vite's settings for one CDN file. App mode rather than library mode: library mode keeps the
 * whitespace of ES output even when minifying. One input and no code splitting make the file
 * self-contained; `strict` entry signatures keep its exports (`configure`, the classes).
 */
export function cdnConfig({ name, entry }, { minify = true, write = true, outDir = CDN_DIR } = {}) {
  return {
    configFile: false,
    root: ROOT,
    publicDir: false,
    logLevel: 'warn',
    plugins: [compactTemplates()],
    build: {
      outDir,
      emptyOutDir: false,
      target: 'es2022',
      minify,
      sourcemap: write,
      write,
      modulePreload: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: { [name]: entry },
        preserveEntrySignatures: 'strict',
        output: { format: 'es', entryFileNames: '[name].js', codeSplitting: false },
      },
    },
  };
}

/** The code of one CDN file, built in memory (for the size benchmark). */
export async function buildInMemory(target, options) {
  const [output] = [await build(cdnConfig(target, { ...options, write: false }))].flat();
  return output.output.find((chunk) => chunk.type === 'chunk' && chunk.isEntry).code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { mkdir, rm, writeFile } = await import('node:fs/promises');
  const [outDir = CDN_DIR, only] = process.argv.slice(2);
  const names = only?.split(',');
  await rm(outDir, { recursive: true, force: true });
  for (const target of cdnEntries().filter(({ name }) => !names || names.includes(name)))
    await build(cdnConfig(target, { outDir }));
  await mkdir(outDir, { recursive: true });
  await writeFile(`${outDir}/pulse-widgets.css`, undefinedSizesCss());
  console.log(`CDN modules written to ${outDir}`);
}
