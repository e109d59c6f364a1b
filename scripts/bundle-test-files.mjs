/**
 * A web-test-runner middleware that serves the browser test files bundled by esbuild: each test
 * file is one module, and what the files share (Lit, @open-wc/testing with chai and axe-core, our
 * sources) sits in a few chunks at the same URLs for every file, so a browser fetches and
 * compiles them once per run and takes them from its caches for the next page. Served module by
 * module, a test page asked the dev server for about 250 modules (each resolved and transformed on
 * request), and the browser fetched, parsed and linked each one of them for every page.
 *
 * All test files are built together as the runner starts (while the browsers launch), with linked
 * source maps (fetched only when the runner maps a failure's stack to the sources); they are
 * built again when a file they were built from has changed since (watch mode).
 */
import { readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

/** The modules a test page loads from the runner itself, at run time, not from our tree. */
const RUNNER_MODULES = ['/__web-dev-server__web-socket.js'];

/** Where the shared chunks are served, inside the test folder so that relative imports reach them. */
const CHUNKS = '__bundled__';

/** Modification times of the files a build read, to tell whether it is stale. */
async function modifiedTimes(rootDir, inputs) {
  return Promise.all(
    inputs.map((input) =>
      stat(join(rootDir, input)).then(
        (stats) => stats.mtimeMs,
        () => Number.NaN,
      ),
    ),
  );
}

/**
 * @param {object} options
 * @param {string} options.dir the folder of the test files, relative to `rootDir`
 * @param {(name: string) => boolean} options.isTestFile which files in it are browser test files
 * @param {string[]} options.conditions package export conditions, as the dev server's `nodeResolve`
 * @param {string} options.target the JavaScript version to compile to
 * @param {string} options.tsconfig
 * @param {string} [options.rootDir]
 */
export function bundleTestFiles({ dir, isTestFile, conditions, target, tsconfig, rootDir = process.cwd() }) {
  const outdir = join(rootDir, dir);
  /** @type {Promise<{ files: Map<string, string>, inputs: string[], times: number[] }> | undefined} */
  let building;

  async function build() {
    const entryPoints = readdirSync(outdir)
      .filter(isTestFile)
      .map((name) => join(outdir, name));
    const result = await esbuild.build({
      absWorkingDir: rootDir,
      entryPoints,
      outdir,
      entryNames: '[name]',
      chunkNames: `${CHUNKS}/[name]-[hash]`,
      bundle: true,
      splitting: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target,
      conditions,
      tsconfig,
      sourcemap: 'linked',
      external: RUNNER_MODULES,
      metafile: true,
      logLevel: 'error',
    });
    // Served under the test file's own name: `test/foo.test.ts` is `test/foo.test.js`.
    const files = new Map(
      result.outputFiles.map((file) => [`/${dir}/${file.path.slice(outdir.length + 1)}`, file.text]),
    );
    const inputs = Object.keys(result.metafile.inputs);
    return { files, inputs, times: await modifiedTimes(rootDir, inputs) };
  }

  /** The latest build, built again when one of its inputs changed (or it failed). */
  async function current() {
    const built = await building?.catch(() => undefined);
    if (built) {
      const times = await modifiedTimes(rootDir, built.inputs);
      if (times.every((time, index) => time === built.times[index])) return built;
    }
    building = build();
    return building;
  }

  // Started now, while the browsers launch; a failed build is built again (and reported) on request.
  building = build();
  building.catch(() => {});

  const testFile = new RegExp(`^/${dir}/([^/]+)\\.ts$`);
  const output = new RegExp(`^/${dir}/(${CHUNKS}/)?[^/]+\\.js(\\.map)?$`);
  return async function serveBundled(context, next) {
    const name = testFile.exec(context.path)?.[1];
    const isEntry = name !== undefined && isTestFile(`${name}.ts`);
    // A chunk is served from the build its entry came from: only an entry may start a new build.
    if (!isEntry && !(building && output.test(context.path))) return next();
    const { files } = await (isEntry ? current() : building);
    const body = files.get(isEntry ? `/${dir}/${name}.js` : context.path);
    if (body === undefined) return next();
    context.type = context.path.endsWith('.map') ? 'json' : 'js';
    context.body = body;
  };
}
