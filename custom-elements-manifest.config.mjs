/**
 * `npm run analyze` writes custom-elements.json from the elements' JSDoc (`@summary`, `@csspart`,
 * `@cssproperty`, `@cssstate`, `@fires`) and their Lit properties. package.json points at it
 * ("customElements"), Storybook builds its controls and autodocs from it, and
 * scripts/docs-from-cem.mjs writes the attribute tables of docs/usage.md from it.
 */
export default {
  globs: ['src/elements/**/*.ts', 'src/internal/**/*.ts'],
  exclude: ['**/*.styles.ts', '**/*.test.ts'],
  outdir: '.',
  litelement: true,
  // package.json is edited by hand, not by the analyzer.
  packagejson: false,
};
