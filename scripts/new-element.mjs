/**
 * `npm run new:element -- <tag>`: a new element that builds, type-checks and passes its tests,
 * written where every element has its parts: the class, its styles and the module that
 * registers it (src/elements/<tag>/), its terms section (src/locales/en.ts, translated in the nine
 * other locale files), its stories and browser test, its package export, its import in
 * src/index.ts, its class in src/classes.ts, and an empty reference block in docs/usage.md for
 * `npm run docs` to fill. It shows how many people are on the site now (quickstats): a working
 * start to change, not a stub. What the template cannot do is the checklist in docs/contributing.md.
 *
 *   node scripts/new-element.mjs <tag>   (in the tree to write to: npm runs it at the root)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A custom element name of our kind: lower-case words joined by hyphens, at least two. */
const TAG = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/;

/** The template's three terms in each language besides English (the English ones are in `english` below). */
const TRANSLATIONS = {
  de: {
    label: 'Personen auf der Website jetzt',
    empty: 'Gerade niemand auf der Website.',
    now: 'Jetzt auf der Website: ',
  },
  fr: {
    label: 'Personnes sur le site en ce moment',
    empty: 'Personne sur le site en ce moment.',
    now: 'Sur le site en ce moment : ',
  },
  es: {
    label: 'Personas en el sitio ahora',
    empty: 'Nadie en el sitio ahora mismo.',
    now: 'Ahora en el sitio: ',
  },
  it: { label: 'Persone sul sito ora', empty: 'Nessuno sul sito in questo momento.', now: 'Ora sul sito: ' },
  pt: { label: 'Pessoas no site agora', empty: 'Ninguém no site agora.', now: 'Agora no site: ' },
  nl: { label: 'Mensen op de site nu', empty: 'Er is nu niemand op de site.', now: 'Nu op de site: ' },
  pl: { label: 'Osoby na stronie teraz', empty: 'Nikogo teraz na stronie.', now: 'Teraz na stronie: ' },
  ja: { label: '現在サイトにいる人', empty: '現在サイトには誰もいません。', now: '現在サイトにいる人: ' },
  ar: { label: 'الأشخاص على الموقع الآن', empty: 'لا أحد على الموقع الآن.', now: 'الآن على الموقع: ' },
};

/** `visitor-gauge` → `{ tag, camel: 'visitorGauge', className: 'VisitorGauge' }`. */
export function elementNames(tag) {
  if (!TAG.test(tag))
    throw new Error(
      `"${tag}" is not an element name: lower-case words joined by hyphens, e.g. visitor-gauge`,
    );
  const camel = tag.replace(/-([a-z0-9])/g, (_, letter) => letter.toUpperCase());
  return { tag, camel, className: camel[0].toUpperCase() + camel.slice(1) };
}

function component({ tag, camel, className }) {
  return `import { html, type TemplateResult } from 'lit/html.js';
import type { QuickstatsResponse, RouteName, Shape } from '../../api/index.ts';
import { QUICKSTATS_SHAPE } from '../../api/response-shapes.ts';
import { cardTerms, ${camel}Terms } from '../../locales/en.ts';
import { PulseElement } from '../../internal/pulse-element.ts';
import type { Styles } from '../../internal/style-sheet.ts';
import { ${camel}Styles } from './${tag}.styles.ts';

/**
 * @summary How many people are on the site now. Shows quickstats v4 data (add \`path=\` to \`src\`
 * for one page, \`section=\` for one section).
 *
 * Parts, tokens, states and events common to every element are inherited from \`PulseElement\`.
 *
 * @csspart value - The number of people.
 *
 * @cssproperty --pulse-${tag}-value-color - The number's colour.
 *
 * @cssstate ready - Showing the number.
 * @cssstate empty - Nobody is on the site.
 *
 * @fires pulse-data - New data arrived ({@link PulseDataEvent}).
 * @fires pulse-error - A request failed or \`src\` is unusable ({@link PulseErrorEvent}).
 */
export class ${className} extends PulseElement<QuickstatsResponse> {
  static override styles: Styles = [PulseElement.styles, ${camel}Styles];
  static override route: RouteName = 'quickstats';
  static override shape: Shape = QUICKSTATS_SHAPE;
  static override terms = { ...cardTerms, ...${camel}Terms };

  protected override get defaultLabel(): string {
    return this.localize.term('${camel}Label');
  }

  protected override get emptyText(): string {
    return this.localize.term('${camel}Empty');
  }

  protected override isEmpty(data: QuickstatsResponse): boolean {
    return (data.data.stats.people ?? 0) === 0;
  }

  protected override dataChanged(data: QuickstatsResponse): string | undefined {
    return this.localize.term('${camel}Announcement', this.localize.count(data.data.stats.people ?? 0));
  }

  protected override renderData(data: QuickstatsResponse): TemplateResult {
    const people = this.localize.count(data.data.stats.people ?? 0);
    return html\`<p part="value">\${people} \${this.localize.term('visitorsUnit', people)}</p>\`;
  }
}
`;
}

function styles({ tag, camel }) {
  return `import { css } from '../../internal/style-sheet.ts';

export const ${camel}Styles = css\`
  :host {
    --pulse-${tag}-value-color: var(--_accent);
  }

  [part='value'] {
    margin: 0;
    font-size: 2em;
    color: var(--pulse-${tag}-value-color);
  }
\`;
`;
}

function registration({ tag, className }) {
  return `/** Registers <${tag}>; the class alone, registering nothing, is in ${tag}.component.ts. */
import { ${className} } from './${tag}.component.ts';

export * from './${tag}.component.ts';

${className}.define('${tag}');

declare global {
  interface HTMLElementTagNameMap {
    '${tag}': ${className};
  }
}
`;
}

function stories({ tag }) {
  return `import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { storySrc } from './support/endpoint.ts';
import { elementMeta, type Args } from './support/render.ts';
import { commonStories } from './support/states.ts';

const TAG = '${tag}';
const common = commonStories(TAG, 'quickstats');

const meta: Meta<Args> = { title: 'Elements/${tag}', ...elementMeta(TAG, { src: storySrc('quickstats') }) };
export default meta;

type Story = StoryObj<Args>;

/** Live simulator data. */
export const Live: Story = { tags: ['state:ready'] };
export const Loading: Story = { ...common.loading, tags: ['state:loading'] };
export const Empty: Story = { ...common.empty, tags: ['state:empty'] };
export const ErrorState: Story = { ...common.error, name: 'Error', tags: ['state:error'] };
export const Stale: Story = { ...common.stale, tags: ['state:stale'] };
export const Paused: Story = { ...common.paused, tags: ['state:paused'] };
export const Dark: Story = { ...common.dark, tags: ['state:ready'] };
export const RightToLeft: Story = { ...common.rightToLeft, tags: ['state:ready'] };
export const NarrowContainer: Story = { ...common.narrow, tags: ['state:ready'] };
`;
}

function browserTest({ tag }) {
  return `import { expect, fixtureSync, html } from '@open-wc/testing';
import '../src/index.ts';
import { failOnLitWarnings, freshHub, reply, settleElements } from './helpers/browser-fakes.ts';
import { quickstats, URLS } from './helpers/browser-fixtures.ts';
import { describeCommonBehaviour } from './helpers/browser-states.ts';

describe('<${tag}>', () => {
  failOnLitWarnings();

  describeCommonBehaviour({
    tag: '${tag}',
    src: URLS.quickstats,
    ready: quickstats(1234),
    empty: quickstats(0),
    readyText: '1,234',
  });

  it('shows how many people are on the site', async () => {
    const { clock } = freshHub(() => reply(clock, quickstats(1234)));
    const root = fixtureSync(html\`<div lang="en"></div>\`);
    root.innerHTML = \`<${tag} src="\${URLS.quickstats}"></${tag}>\`;
    await settleElements(root);
    const value = root.firstElementChild!.shadowRoot!.querySelector('[part=value]')!;
    expect(value.textContent!.replace(/\\s+/g, ' ').trim()).to.equal('1,234 visitors');
  });
});
`;
}

/** Replaces the one match of `pattern` in `text`, or says where the tree differs from what the template knows. */
function replaceOnce(text, pattern, replacement, where) {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? [];
  if (matches.length !== 1)
    throw new Error(
      `${where}: expected one match of ${pattern}, found ${matches.length}; add it by hand (docs/contributing.md)`,
    );
  return text.replace(pattern, replacement);
}

/** The English section, and the section's type and value added to the catalog. */
function english(text, { tag, camel }) {
  const section = `/** <${tag}> */
export const ${camel}Terms = {
  ${camel}Label: 'People on the site now',
  ${camel}Empty: 'Nobody on the site right now.',
  ${camel}Announcement: (count: Count) => \`Now on the site: \${count}\`,
};

`;
  let next = replaceOnce(
    text,
    /\/\*\* The whole catalog/,
    `${section}/** The whole catalog`,
    'src/locales/en.ts',
  );
  next = replaceOnce(
    next,
    /(export type Terms = [^;]*);/,
    `$1\n  & typeof ${camel}Terms;`,
    'src/locales/en.ts',
  );
  return replaceOnce(
    next,
    /(export const en: Terms = [^;]*?),?\n\);/,
    `$1,\n  ${camel}Terms,\n);`,
    'src/locales/en.ts',
  );
}

/** A string literal as the locale files write them. */
const quoted = (text) => `'${text.replace(/[\\']/g, (character) => `\\${character}`)}'`;

function translated(text, code, { camel }) {
  const words = TRANSLATIONS[code];
  const entries = [
    `  ${camel}Label: ${quoted(words.label)},`,
    `  ${camel}Empty: ${quoted(words.empty)},`,
    `  ${camel}Announcement: (count) => \`${words.now}\${count}\`,`,
  ].join('\n');
  return replaceOnce(
    text,
    new RegExp(`\\n};\\n\\nregisterTranslation\\(${code}\\);`),
    `\n\n${entries}\n};\n\nregisterTranslation(${code});`,
    `src/locales/${code}.ts`,
  );
}

/** package.json's exports with `./<tag>` among the elements' (in name order, before the locales). */
function withExport(pkg, { tag }) {
  const entry = { types: `./dist/types/elements/${tag}/${tag}.d.ts`, default: `./dist/${tag}.js` };
  const exports = {};
  let placed = false;
  for (const [subpath, value] of Object.entries(pkg.exports)) {
    const isElement = typeof value === 'object' && value.types?.startsWith('./dist/types/elements/');
    if (!placed && ((isElement && subpath > `./${tag}`) || subpath.startsWith('./locales/'))) {
      exports[`./${tag}`] = entry;
      placed = true;
    }
    exports[subpath] = value;
  }
  if (!placed) exports[`./${tag}`] = entry;
  return { ...pkg, exports };
}

/** Inserts `line` after the last line that matches `pattern`. */
function afterLast(text, pattern, line, where) {
  const lines = text.split('\n');
  const last = lines.findLastIndex((candidate) => pattern.test(candidate));
  if (last === -1)
    throw new Error(`${where}: no line matches ${pattern}; add it by hand (docs/contributing.md)`);
  lines.splice(last + 1, 0, line);
  return lines.join('\n');
}

/** Writes the element into the tree at `root`; returns the files written or changed, relative to it. */
export function newElement(tag, root) {
  const names = elementNames(tag);
  const folder = join(root, 'src/elements', tag);
  if (existsSync(folder)) throw new Error(`src/elements/${tag} exists already`);
  const written = new Map();
  const write = (path, text) => written.set(path, text);
  const read = (path) => (written.has(path) ? written.get(path) : readFileSync(join(root, path), 'utf8'));

  write(`src/elements/${tag}/${tag}.component.ts`, component(names));
  write(`src/elements/${tag}/${tag}.styles.ts`, styles(names));
  write(`src/elements/${tag}/${tag}.ts`, registration(names));
  write(`stories/${tag}.stories.ts`, stories(names));
  write(`test/${tag}.test.ts`, browserTest(names));
  write('src/locales/en.ts', english(read('src/locales/en.ts'), names));
  for (const code of Object.keys(TRANSLATIONS))
    write(`src/locales/${code}.ts`, translated(read(`src/locales/${code}.ts`), code, names));
  write('package.json', `${JSON.stringify(withExport(JSON.parse(read('package.json')), names), null, 2)}\n`);
  write(
    'src/index.ts',
    afterLast(
      read('src/index.ts'),
      /^import '\.\/elements\//,
      `import './elements/${tag}/${tag}.ts';`,
      'src/index.ts',
    ),
  );
  write(
    'src/classes.ts',
    afterLast(
      read('src/classes.ts'),
      /^export \{.*\} from '\.\/elements\//,
      `export { ${names.className} } from './elements/${tag}/${tag}.component.ts';`,
      'src/classes.ts',
    ),
  );
  write(
    'docs/usage.md',
    afterLast(
      read('docs/usage.md'),
      /^<!-- \/cem:/,
      `\n### \`<${tag}>\`\n\nHow many people are on the site now.\n\n<!-- cem:${tag} -->\n<!-- /cem:${tag} -->`,
      'docs/usage.md',
    ),
  );

  // Everything was made before anything is written: a tree the template does not know is left as it was.
  mkdirSync(folder, { recursive: true });
  for (const [path, text] of written) writeFileSync(join(root, path), text);
  return [...written.keys()];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [tag] = process.argv.slice(2);
  if (!tag) {
    console.error('usage: npm run new:element -- <tag>   (e.g. visitor-gauge)');
    process.exit(2);
  }
  try {
    for (const path of newElement(tag, process.cwd())) console.log(`wrote ${path}`);
    console.log('\nNext: the checklist in docs/contributing.md, "Adding an element".');
  } catch (error) {
    console.error(`new:element: ${error.message}`);
    process.exit(1);
  }
}
