import type { CSSResultOrNative, PropertyDeclarations } from '@lit/reactive-element';
import type { SnapshotChange } from '../client/index.ts';
import type { DataSource } from './frame.ts';
import type { FreezeControl, FreezeHost } from './freeze-control.ts';
import type { English } from './localize.ts';
import type { SitesHost } from './sites-source.ts';
import type { StyleSheet, Styles } from './style-sheet.ts';

/** Makes the source of an element showing several sites in one (the network view). */
export type SitesSourceFactory = (host: SitesHost, onChange: SnapshotChange<unknown>) => DataSource<unknown>;

/**
 * The optional features an element class can be given, by name: what the element calls to make
 * or render each. An element module that has features of its own adds them to this interface.
 */
export interface Features {
  /** The network view: `src` takes several addresses, one per site, polled and merged. Without it an element takes one address. */
  sitesSource: SitesSourceFactory;
  /** The freeze control of a list, which `tools="freeze"` shows. */
  freezeControl: <Data>(host: FreezeHost<Data>) => FreezeControl<Data>;
}

/** What a feature brings to the class it is registered on, besides its behaviour. */
export interface FeatureAssets {
  /** Its styles, adopted by every element of the class made from then on. */
  readonly styles?: Styles;
  /** Its English, which the class's elements read from then on. */
  readonly terms?: English;
  /** Properties it adds to the class (their attributes are read by the feature itself when the class was defined before). */
  readonly properties?: PropertyDeclarations;
}

/**
 * An element class (on the lean base): it reads `styles` once, when the class is finalized,
 * into `elementStyles`, and makes properties with `createProperty`.
 */
export interface ElementClass {
  styles?: Styles;
  readonly elementStyles: (StyleSheet | CSSResultOrNative)[];
  terms: English;
  createProperty(name: string, options: PropertyDeclarations[string]): void;
}

/** The features registered on each class. */
const registered = new WeakMap<object, Partial<Features>>();

/**
 * Gives the element class `type` (and its subclasses) the feature `name`, with its styles and
 * English. Optional features are registered by the modules that own them (src/newsroom.ts,
 * live-counter-typical.ts), never by the element modules, so a bundle that does not ask for a
 * feature carries neither it nor this function. Every element made after the registration has
 * the feature, whether its class was defined before or after: a class already finalized gets
 * the styles in its `elementStyles`.
 */
export function registerFeature<Name extends keyof Features>(
  type: ElementClass,
  name: Name,
  feature: Features[Name],
  assets: FeatureAssets = {},
): void {
  registered.set(type, { ...registered.get(type), [name]: feature });
  if (assets.styles) {
    type.styles = [type.styles ?? [], assets.styles];
    if (Object.hasOwn(type, 'elementStyles'))
      type.elementStyles.push(...([assets.styles].flat(Infinity as 1) as CSSResultOrNative[]));
  }
  // The object the class's elements read their English from, so elements made before have it too.
  Object.assign(type.terms, assets.terms);
  for (const [property, options] of Object.entries(assets.properties ?? {}))
    type.createProperty(property, options);
}

/** The feature `name` registered on `element`'s class or the nearest class above it. */
export function featureOf<Name extends keyof Features>(
  element: object,
  name: Name,
): Features[Name] | undefined {
  for (let type = element.constructor; type !== HTMLElement; type = Object.getPrototypeOf(type)) {
    const feature = registered.get(type)?.[name];
    if (feature) return feature;
  }
  return undefined;
}

/**
 * Registers an element class unless the name is taken: a page that loads two copies of the
 * script gets a warning, not an exception that would stop the rest of the page's scripts.
 */
export function defineElement(name: string, type: object): void {
  const existing = customElements.get(name);
  if (!existing) customElements.define(name, type as CustomElementConstructor);
  else if (existing !== type)
    console.warn(`pulse-widgets: <${name}> is already defined on this page; keeping the first definition.`);
}
