import babelParser from '@babel/eslint-parser';
import lit from 'eslint-plugin-lit';
import litA11y from 'eslint-plugin-lit-a11y';
import wc from 'eslint-plugin-wc';

/**
 * ESLint for what Biome cannot see: Lit templates (bindings, directives, accessibility) and custom
 * element rules, on the code that renders (`src`, `stories`). Babel reads the TypeScript, since
 * typescript-eslint needs a TypeScript with a JavaScript API and ours (7.0) has none yet
 * (docs/contributing.md, "Code style"); Biome checks the rest of the language.
 */
export default [
  {
    files: ['src/**/*.ts', 'stories/**/*.ts'],
    languageOptions: {
      parser: babelParser,
      parserOptions: {
        requireConfigFile: false,
        babelOptions: {
          babelrc: false,
          configFile: false,
          presets: [['@babel/preset-typescript', { allowDeclareFields: true }]],
        },
      },
    },
    plugins: { lit, 'lit-a11y': litA11y, wc },
    rules: {
      ...lit.configs.recommended.rules,
      ...litA11y.configs.recommended.rules,
      ...wc.configs.recommended.rules,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
];
