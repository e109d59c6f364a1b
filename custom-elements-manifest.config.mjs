/**
 * `npm run analyze` writes custom-elements.json from the elements' JSDoc (`@summary`, `@csspart`,
 * `@cssproperty`, `@cssstate`, `@fires`) and their Lit properties. package.json points at it
 * ("customElements"), Storybook builds its controls and autodocs from it, and
 * scripts/docs-from-cem.mjs writes the attribute tables of docs/usage.md from it.
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';

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
      moduleDoc.exports = [...(moduleDoc.exports ?? []), {
        kind: 'custom-element-definition',
        name: tag.text,
        declaration: { name: target.text, module: imported ? posix.join(posix.dirname(moduleDoc.path), imported.importPath) : moduleDoc.path },
      }];
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
        module.exports = module.exports?.filter((entry) => entry.kind !== 'custom-element-definition' || !entry.declaration.name.startsWith('anonymous_'));
      }
      for (const declaration of customElementsManifest.modules.flatMap((module) => module.declarations ?? [])) {
        if (declaration.kind !== 'class') continue;
        declaration.members = declaration.members?.filter((member) => !member.privacy && !member.static && !member.name.startsWith('#'));
        declaration.events = declaration.events?.filter((event) => event.name);
      }
    },
  };
}

/**
 * globby (fast-glob) returns files in the order its concurrent directory reads finish, which
 * changes under load; the manifest lists modules in that order. Sorting makes it reproducible.
 */
function modulesInPathOrder({ ts, globs }) {
  return [...globs].sort().map((path) => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2015, true));
}

export default {
  globs: ['src/elements/**/*.ts', 'src/internal/**/*.ts'],
  exclude: ['**/*.styles.ts'],
  outdir: '.',
  litelement: true,
  // package.json is edited by hand, not by the analyzer.
  packagejson: false,
  overrideModuleCreation: modulesInPathOrder,
  plugins: [staticDefinePlugin(), publicApiPlugin()],
};
