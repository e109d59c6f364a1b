/**
 * The Node test files bundled by esbuild, each into one module of plain JavaScript (what the files
 * share in a few chunks beside them), so that `node --test` runs them without a TypeScript loader.
 * Through tsx, every module a test process loads (our sources and every package they import) is
 * resolved and loaded by hooks on a thread of their own: 0.3 to 1.3 CPU-s more for each test
 * file, and twice the CPU for each CLI a test starts (BENCHMARKS.md, "`npm test`, step by step").
 *
 * Packages stay imports, resolved from node_modules as they are under tsx. Each of our modules
 * keeps its own address: `import.meta.url` is the source file's URL, so what a module reads,
 * spawns or forks beside itself (package.json, fixtures, `src/server/cli.ts`) is what it was
 * under tsx. Source maps are linked: `--enable-source-maps` points a failure at the .ts line.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

/**
 * What the tests start in processes of their own (test/helpers/entry-command.node.ts), bundled
 * with them. Not scripts/build-cdn.mjs: it runs its build only when it is the process's main
 * module, which its bundle is not.
 */
export const SPAWNED_ENTRIES = [
  'src/server/cli.ts',
  'src/simulator/cli.ts',
  'test/helpers/workers-fixture.node.ts',
  'test/helpers/coordinator-process.node.ts',
  'test/simulation/pool.ts',
];

/**
 * In the checkout's ignored `.tmp/` (no linter or type check looks there), where packages resolve
 * from the checkout's node_modules. Not inside node_modules: Node 22 and later take the file
 * names given to `node --test` as patterns, which never match there.
 */
export const BUNDLED_DIR = '.tmp/node-tests';

/** Each of our modules (not packages) built with its `import.meta.url` written as its source's URL. */
const sourceAddresses = {
  name: 'source-addresses',
  setup(build) {
    build.onLoad({ filter: /\.(ts|mjs|js)$/ }, async ({ path }) => {
      if (path.includes('/node_modules/')) return undefined;
      const source = await readFile(path, 'utf8');
      return {
        contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
        loader: path.endsWith('.ts') ? 'ts' : 'js',
      };
    });
  },
};

/**
 * Bundles the test files (paths relative to `rootDir`) and SPAWNED_ENTRIES into BUNDLED_DIR,
 * which is emptied first; resolves with the bundled file of each test file, in the order given.
 */
export async function bundleNodeTests(files, rootDir = process.cwd()) {
  const outdir = join(rootDir, BUNDLED_DIR);
  // Emptied first: no chunk of an earlier build lingers beside this one's.
  await rm(outdir, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: rootDir,
    entryPoints: [...files, ...SPAWNED_ENTRIES],
    outdir,
    outbase: rootDir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    tsconfig: join(rootDir, 'tsconfig.json'),
    sourcemap: 'linked',
    plugins: [sourceAddresses],
    logLevel: 'error',
  });
  return files.map((file) => join(BUNDLED_DIR, file.replace(/\.ts$/, '.mjs')));
}
