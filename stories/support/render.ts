/**
 * What every story file shares: one way to turn a story's args into an element (attributes from
 * custom-elements.json, tokens as inline custom properties, events to the Actions panel), the
 * controls that the manifest alone cannot choose, and the frames stories put elements in.
 */
import type { ArgTypes, Meta } from '@storybook/web-components-vite';
import { html, type TemplateResult } from 'lit';
import manifest from '../../custom-elements.json';
import '../../src/locales/ar.ts';

export type Args = Record<string, unknown>;

interface Declaration {
  tagName?: string;
  attributes?: { name: string; fieldName?: string }[];
  cssProperties?: { name: string }[];
  events?: { name: string }[];
}

function declarationOf(tag: string): Declaration {
  const modules = (manifest as { modules: { declarations?: Declaration[] }[] }).modules;
  const found = modules
    .flatMap((module) => module.declarations ?? [])
    .find((declaration) => declaration.tagName === tag);
  if (!found) throw new Error(`<${tag}> is not in custom-elements.json: run \`npm run analyze\``);
  return found;
}

/** `pulse-data` -> `onPulseData`: the arg Storybook gives an event's action. */
function actionArg(event: string): string {
  return `on${event.replace(/(^|-)([a-z])/g, (_match, _dash, letter: string) => letter.toUpperCase())}`;
}

/**
 * The element `tag` with `args` applied: known attributes set (booleans toggled, unset values
 * left out), `--pulse-*` args set as custom properties, and each event sent to its action.
 */
export function pulseElement(tag: string, args: Args): HTMLElement {
  const declaration = declarationOf(tag);
  const element = document.createElement(tag);
  for (const { name } of declaration.attributes ?? []) {
    const value = args[name];
    if (typeof value === 'boolean') element.toggleAttribute(name, value);
    else if (value !== undefined && value !== null) element.setAttribute(name, String(value));
  }
  for (const { name } of declaration.cssProperties ?? []) {
    const value = args[name];
    if (typeof value === 'string' && value !== '') element.style.setProperty(name, value);
  }
  for (const { name } of declaration.events ?? []) {
    const action = args[actionArg(name)];
    if (typeof action === 'function') element.addEventListener(name, action as EventListener);
  }
  return element;
}

/**
 * Controls beyond the manifest's: a select where an attribute takes a fixed set of values, a
 * colour picker for colour tokens, and the camelCase twin of each dashed attribute hidden (the
 * attribute is the control; the property is listed in the docs).
 */
function controlsFor(tag: string, options: Record<string, readonly string[]> = {}): ArgTypes<Args> {
  const declaration = declarationOf(tag);
  const argTypes: ArgTypes<Args> = {
    theme: { control: 'inline-radio', options: ['auto', 'light', 'dark'] },
  };
  for (const [name, values] of Object.entries(options))
    argTypes[name] = { control: 'select', options: [...values] };
  for (const { name, fieldName } of declaration.attributes ?? []) {
    if (fieldName && fieldName !== name) argTypes[fieldName] = { table: { disable: true } };
  }
  for (const { name } of declaration.cssProperties ?? []) {
    argTypes[name] = {
      control: name.startsWith('--pulse-color') || name.endsWith('-color') ? 'color' : 'text',
    };
  }
  return argTypes;
}

/**
 * The meta of an element's stories, less the title (Storybook reads titles from the source):
 * `args` for every story, controls from the manifest plus `options`, and one render.
 */
export function elementMeta(
  tag: string,
  args: Args,
  options: Record<string, readonly string[]> = {},
): Meta<Args> {
  return {
    component: tag,
    args,
    argTypes: controlsFor(tag, options),
    render: (storyArgs) => pulseElement(tag, storyArgs),
  };
}

/** Waits until `element` shows data. */
export async function whenReady(element: Element | null): Promise<void> {
  if (!element || element.matches(':state(ready)')) return;
  await new Promise((resolve) => element.addEventListener('pulse-data', resolve, { once: true }));
  await (element as HTMLElement & { updateComplete?: Promise<unknown> }).updateComplete;
}

/** A dark page around the content, as a site in dark mode would be. */
export function darkPage(content: unknown): TemplateResult {
  return html`<div style="background: #010409; color-scheme: dark; padding: 1rem">${content}</div>`;
}

/** A narrow column (a sidebar, a phone), to see how the content wraps. */
export function narrowColumn(content: unknown): TemplateResult {
  return html`<div style="inline-size: 15rem">${content}</div>`;
}

/** A page in Arabic: words, numbers, place names and the direction (right to left) follow its lang. */
export function rightToLeft(content: unknown): TemplateResult {
  return html`<div lang="ar">${content}</div>`;
}

/** A sentence above a story, saying what to look at. */
export function caption(text: string, content: unknown): TemplateResult {
  return html`<p style="font: 0.875rem system-ui, sans-serif; margin: 0 0 0.75rem">${text}</p>${content}`;
}
