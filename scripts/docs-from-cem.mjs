/**
 * Writes each element's reference (attributes, events, parts, custom properties, states) into
 * docs/usage.md from custom-elements.json, between `<!-- cem:<tag> -->` and
 * `<!-- /cem:<tag> -->`, so the docs cannot drift from the JSDoc. What every element has is
 * written once, in the `<!-- cem:common -->` block; an element's block repeats a common item only
 * where the element describes it differently.
 *
 *   node scripts/docs-from-cem.mjs           rewrite docs/usage.md
 *   node scripts/docs-from-cem.mjs --check   exit 1 when docs/usage.md is out of date
 */
import { readFile, writeFile } from 'node:fs/promises';

const MANIFEST = new URL('../custom-elements.json', import.meta.url);
const DOC = new URL('../docs/usage.md', import.meta.url);

const manifest = JSON.parse(await readFile(MANIFEST, 'utf8'));
const before = await readFile(DOC, 'utf8');
const elements = new Map(customElements(manifest).map((element) => [element.tagName, element]));
const LISTS = ['attributes', 'events', 'cssParts', 'cssProperties', 'cssStates'];
const base = sharedBase(manifest, [...elements.values()]);
const common = Object.fromEntries(LISTS.map((list) => [list, shared(base, [...elements.values()], list)]));
const ownOnly = (element) => ({
  ...element,
  ...Object.fromEntries(
    LISTS.map((list) => [
      list,
      (element[list] ?? []).filter(
        (item) => !common[list].some((one) => one.name === item.name && one.description === item.description),
      ),
    ]),
  ),
});

const missing = [];
const after = before.replace(/<!-- cem:([a-z0-9-]+) -->[\s\S]*?<!-- \/cem:\1 -->/g, (_block, tag) => {
  const element =
    tag === 'common' ? { ...common, members: base.members } : elements.get(tag) && ownOnly(elements.get(tag));
  if (!element) missing.push(tag);
  return `<!-- cem:${tag} -->\n${element ? reference(element) : ''}\n<!-- /cem:${tag} -->`;
});
const undocumented = [...elements.keys()].filter((tag) => !before.includes(`<!-- cem:${tag} -->`));

if (missing.length > 0)
  fail(`docs/usage.md has a block for ${missing.join(', ')}, which custom-elements.json does not define`);
if (undocumented.length > 0)
  fail(`docs/usage.md has no <!-- cem:${undocumented[0]} --> block for ${undocumented.join(', ')}`);
if (process.argv.includes('--check')) {
  if (after !== before) fail('docs/usage.md is out of date with custom-elements.json: run `npm run docs`');
  console.log(`docs/usage.md matches custom-elements.json (${elements.size} elements)`);
} else if (after !== before) {
  await writeFile(DOC, after);
  console.log(`docs/usage.md: references of ${elements.size} elements rewritten`);
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

/**
 * The class most elements extend (its descriptions are the general ones: PulseElement, which
 * <live-counter>, on a lean base of its own, does not extend), else the first element.
 */
function sharedBase(cem, all) {
  const counts = new Map();
  for (const { superclass } of all) counts.set(superclass?.name, (counts.get(superclass?.name) ?? 0) + 1);
  const [name] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
  const declared = cem.modules
    .flatMap((module) => module.declarations ?? [])
    .find((declaration) => declaration.name === name);
  return declared || all[0] || {};
}

/** The items of `list` in `base` that every element has too. */
function shared(base, all, list) {
  return (base[list] ?? []).filter((item) =>
    all.every((element) => (element[list] ?? []).some((one) => one.name === item.name)),
  );
}

function customElements(cem) {
  return cem.modules
    .flatMap((module) => module.declarations ?? [])
    .filter((declaration) => declaration.customElement && declaration.tagName)
    .sort((a, b) => a.tagName.localeCompare(b.tagName));
}

function reference(element) {
  const sections = [];
  const fieldOf = new Map((element.members ?? []).map((member) => [member.name, member]));
  const attributes = (element.attributes ?? []).map((attribute) => {
    const field = attribute.fieldName ? fieldOf.get(attribute.fieldName) : undefined;
    return [
      code(attribute.name),
      attribute.fieldName ? code(attribute.fieldName) : '',
      code(attribute.type?.text ?? field?.type?.text ?? ''),
      code(attribute.default ?? field?.default ?? ''),
      attribute.description ?? field?.description ?? '',
    ];
  });
  sections.push(table('Attributes', ['Attribute', 'Property', 'Type', 'Default', 'Description'], attributes));
  const events = (element.events ?? [])
    .filter((event) => event.name)
    .map((event) => [code(event.name), code(event.type?.text ?? ''), event.description ?? '']);
  sections.push(table('Events', ['Event', 'Type', 'Description'], events));
  sections.push(
    table(
      'Parts',
      ['Part', 'Description'],
      named(element.cssParts, (name) => `::part(${name})`),
    ),
  );
  sections.push(
    table(
      'Custom properties',
      ['Custom property', 'Default', 'Description'],
      (element.cssProperties ?? []).map((property) => [
        code(property.name),
        code(property.default ?? ''),
        property.description ?? '',
      ]),
    ),
  );
  sections.push(
    table(
      'States',
      ['State', 'Description'],
      named(element.cssStates, (name) => `:state(${name})`),
    ),
  );
  return sections.filter(Boolean).join('\n\n');
}

function named(list, show) {
  return (list ?? []).map((item) => [code(show(item.name)), item.description ?? '']);
}

/** A Markdown table under a bold heading; columns empty in every row are left out. */
function table(what, header, rows) {
  if (rows.length === 0) return '';
  const kept = header
    .map((_name, column) => column === 0 || rows.some((row) => row[column] !== ''))
    .flatMap((keep, column) => (keep ? [column] : []));
  const line = (cells) => `| ${kept.map((column) => cell(cells[column])).join(' | ')} |`;
  return [`**${what}**`, '', line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** One table cell: a single line, pipes escaped, JSDoc `{@link X}` as code. */
function cell(text) {
  return String(text)
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, '`$1`')
    .replace(/\s*\n\s*/g, ' ')
    .replaceAll('|', '\\|');
}

function code(text) {
  return text === '' ? '' : `\`${text}\``;
}
