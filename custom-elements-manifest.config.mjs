/**
 * `npm run analyze` writes custom-elements.json from the elements' JSDoc (`@summary`, `@csspart`,
 * `@cssproperty`, `@cssstate`, `@fires`) and their Lit properties. package.json points at it
 * ("customElements"), Storybook builds its controls and autodocs from it, and
 * scripts/docs-from-cem.mjs writes the attribute tables of docs/usage.md from it.
 *
 * From the same manifest it writes the framework integrations into <outdir>/dist/frameworks/
 * (built, not committed: `npm run build` and so `npm pack` run the analyzer; docs/frameworks.md
 * shows their use): JSX types for React 19, Preact and Solid, Vue 3 and Svelte 5 template types,
 * VS Code custom data for HTML and CSS, JetBrains web-types.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import { generateJsxTypes } from '@wc-toolkit/jsx-types';
import { generateJetBrainsWebTypes } from 'custom-element-jet-brains-integration';
import { generateSvelteTypes } from 'custom-element-svelte-integration';
import { generateVsCodeCustomElementData } from 'custom-element-vs-code-integration';
import { generateVuejsTypes } from 'custom-element-vuejs-integration';

/**
 * Our elements register through `Class.define('tag-name')` (which warns instead of throwing when
 * the name is taken); the analyzer only knows `customElements.define`, so this teaches it ours.
 * The call sits in `<name>.ts`, which imports the class from `<name>.component.ts`: the
 * definition points at the module that declares the class.
 */
function staticDefinePlugin() {
  return {
    name: 'pulse-static-define',
    analyzePhase({ ts, node, moduleDoc, context }) {
      if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
      const { expression: target, name } = node.expression;
      const [tag] = node.arguments;
      if (name.text !== 'define' || !ts.isIdentifier(target) || !tag || !ts.isStringLiteral(tag)) return;
      const imported = context.imports?.find((one) => one.name === target.text && !one.isBareModuleSpecifier);
      moduleDoc.exports = [
        ...(moduleDoc.exports ?? []),
        {
          kind: 'custom-element-definition',
          name: tag.text,
          declaration: {
            name: target.text,
            module: imported
              ? posix.join(posix.dirname(moduleDoc.path), imported.importPath)
              : moduleDoc.path,
          },
        },
      ];
    },
  };
}

/**
 * Types each event with the event class that names it (`static readonly eventName = 'pulse-data'`
 * in src/internal/events.ts), so the framework types hand a listener a `PulseDataEvent`, not an
 * `Event`. Runs before publicApiPlugin drops static members.
 */
function eventTypesPlugin() {
  return {
    name: 'pulse-event-types',
    packageLinkPhase({ customElementsManifest }) {
      const declarations = customElementsManifest.modules.flatMap((module) => module.declarations ?? []);
      const classByEvent = new Map(
        declarations.flatMap((declaration) => {
          const eventName = declaration.members?.find(
            (member) => member.static && member.name === 'eventName',
          )?.default;
          return eventName ? [[eventName.replace(/^['"]|['"]$/g, ''), declaration.name]] : [];
        }),
      );
      for (const event of declarations.flatMap((declaration) => declaration.events ?? [])) {
        const type = classByEvent.get(event.name);
        if (type) event.type = { text: type };
      }
    },
  };
}

/**
 * What a page author can use, only: no private or protected members, no static plumbing, and no
 * definition for the `customElements.define(name, this)` inside `define()` itself (no tag).
 */
function publicApiPlugin() {
  return {
    name: 'pulse-public-api',
    packageLinkPhase({ customElementsManifest }) {
      for (const module of customElementsManifest.modules) {
        module.exports = module.exports?.filter(
          (entry) =>
            entry.kind !== 'custom-element-definition' || !entry.declaration.name.startsWith('anonymous_'),
        );
      }
      for (const declaration of customElementsManifest.modules.flatMap(
        (module) => module.declarations ?? [],
      )) {
        if (declaration.kind !== 'class') continue;
        // Fields declared in `static properties` come marked public; public is the default, as for any other field.
        const hidden = new Set(
          declaration.members
            ?.filter((member) => (member.privacy ?? 'public') !== 'public')
            .map((member) => member.name),
        );
        declaration.members = declaration.members?.filter(
          (member) => !hidden.has(member.name) && !member.static && !member.name.startsWith('#'),
        );
        for (const member of declaration.members ?? []) delete member.privacy;
        // The analyzer takes `{ state: true }` in `static properties` for an attribute: a private field is internal state.
        declaration.attributes = declaration.attributes?.filter(
          (attribute) => !hidden.has(attribute.fieldName),
        );
        declaration.events = declaration.events?.filter((event) => event.name);
        // An attribute and a property both declared in JSDoc (`@attr x` + `@prop x`: a property
        // added by another module, as live-counter's `compare`) are one, as the decorators' are.
        for (const attribute of declaration.attributes ?? []) {
          const field =
            attribute.fieldName === undefined &&
            declaration.members?.find((member) => member.kind === 'field' && member.name === attribute.name);
          if (!field) continue;
          attribute.fieldName = field.name;
          field.attribute = attribute.name;
        }
      }
    },
  };
}

/**
 * The analyzer's --outdir (relative to the working directory, as the analyzer reads it; parsed
 * here as Shoelace's config does): the freshness test analyzes into a temporary folder, and the
 * integrations must go there too, not into this checkout's dist/.
 */
function analyzerOutdir(argv) {
  const at = argv.findIndex((arg) => arg === '--outdir' || arg.startsWith('--outdir='));
  if (at === -1) return '.';
  return argv[at].includes('=') ? argv[at].slice('--outdir='.length) : argv[at + 1];
}

/** Where the declarations are, seen from dist/frameworks/. */
const TYPES = '../types';
/** `src/x/y.ts` -> the declaration module of the built package, `../types/x/y.js`. */
const declarationOf = (modulePath) => `${TYPES}/${modulePath.replace(/^src\//, '').replace(/\.ts$/, '.js')}`;

/**
 * Where the maintained generators get our elements or today's frameworks wrong, what they wrote
 * is corrected here (test/packed-package.node.test.ts type-checks each file in a real project):
 * - Vue, Svelte: every event type is wrapped in `CustomEvent<…>` (taken for a detail type); ours
 *   are Event subclasses.
 * - Svelte 5: the element props extend the retired `svelteHTML` namespace, which svelte-check no
 *   longer reads (`svelte/elements` is the one), use a `JSX` namespace Svelte does not have, and
 *   name listeners `on:x` where Svelte 5 writes `onx`.
 */
const GENERATOR_FIXES = {
  'vue.d.ts': [[/CustomEvent<(import\("[^"]+"\)\.\w+)>/g, '$1']],
  'svelte.d.ts': [
    [/CustomEvent<(import\("[^"]+"\)\.\w+)>/g, '$1'],
    [/children\?: JSX\.Element;/, 'children?: import("svelte").Snippet;'],
    [/style\?: JSX\.CSSProperties;/, 'style?: string;'],
    [/"on:([\w-]+)"\?:/g, '"on$1"?:'],
    [
      /declare namespace svelteHTML \{([^}]*)interface IntrinsicElements extends/,
      'declare module "svelte/elements" {$1interface SvelteHTMLElements extends',
    ],
  ],
};

/**
 * The framework integrations, written by the maintained generators from the finished manifest.
 * They get a copy in which each event's type is an import type of its class: the generators
 * import no event class themselves (the JSX one names it unimported, the Vue and Svelte ones
 * import it once per element, a duplicate identifier).
 */
function frameworkIntegrationsPlugin(outdir) {
  const quiet = { outdir, hideLogs: true };
  return {
    name: 'pulse-framework-integrations',
    packageLinkPhase({ customElementsManifest }) {
      const manifest = structuredClone(customElementsManifest);
      for (const event of manifest.modules
        .flatMap((module) => module.declarations ?? [])
        .flatMap((declaration) => declaration.events ?? [])) {
        if (event.type) event.type = { text: `import("${TYPES}/classes.js").${event.type.text}` };
      }
      generateJsxTypes(manifest, {
        ...quiet,
        fileName: 'jsx.d.ts',
        componentTypePath: (_name, _tag, modulePath) => declarationOf(modulePath),
        stronglyTypedEvents: true,
      });
      generateVuejsTypes(manifest, { ...quiet, fileName: 'vue.d.ts', globalTypePath: `${TYPES}/classes.js` });
      generateSvelteTypes(manifest, {
        ...quiet,
        fileName: 'svelte.d.ts',
        globalTypePath: `${TYPES}/classes.js`,
      });
      for (const [file, fixes] of Object.entries(GENERATOR_FIXES)) {
        const path = posix.join(outdir, file);
        const generated = readFileSync(path, 'utf8');
        for (const [pattern] of fixes)
          if (generated.search(pattern) === -1)
            throw new Error(`${file}: the generator no longer writes ${pattern}; check the fix`);
        writeFileSync(
          path,
          fixes.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), generated),
        );
      }
      generateVsCodeCustomElementData(manifest, {
        ...quiet,
        htmlFileName: 'vscode.html-custom-data.json',
        cssFileName: 'vscode.css-custom-data.json',
      });
      generateJetBrainsWebTypes(manifest, {
        ...quiet,
        webTypesFileName: 'web-types.json',
        packageJson: false,
      });
    },
  };
}

/**
 * globby (fast-glob) returns files in the order its concurrent directory reads finish, which
 * changes under load; the manifest lists modules in that order. Sorting makes it reproducible.
 */
function modulesInPathOrder({ ts, globs }) {
  return [...globs]
    .sort()
    .map((path) => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2015, true));
}

export default {
  globs: ['src/elements/**/*.ts', 'src/internal/**/*.ts'],
  exclude: ['**/*.styles.ts'],
  outdir: '.',
  litelement: true,
  // package.json is edited by hand, not by the analyzer.
  packagejson: false,
  overrideModuleCreation: modulesInPathOrder,
  plugins: [
    staticDefinePlugin(),
    eventTypesPlugin(),
    publicApiPlugin(),
    frameworkIntegrationsPlugin(posix.join(analyzerOutdir(process.argv), 'dist/frameworks')),
  ],
};
