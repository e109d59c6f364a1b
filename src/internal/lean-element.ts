import type {
  PropertyDeclaration,
  PropertyDeclarations,
  ReactiveController,
  ReactiveControllerHost,
} from '@lit/reactive-element';
import type { CSSResultOrNative } from '@lit/reactive-element';
import { defineElement } from './features.ts';
import type { StyleSheet, Styles } from './style-sheet.ts';

/** The properties that changed since the last update, with their values before. */
export type Changes = Map<string, unknown>;

/** The properties of each finalized class, by attribute name. */
const attributesOf = new WeakMap<
  object,
  Map<string, readonly [property: string, options: PropertyDeclaration]>
>();

/**
 * An attribute's value as its property's `type`: a Boolean is present or not (as in Lit); any
 * other type is a function from the attribute's text (Number, String, a parser), applied unless
 * the attribute is absent.
 */
function fromAttribute(value: string | null, type: unknown): unknown {
  if (type === Boolean) return value !== null;
  return typeof type === 'function' && value !== null ? type(value) : value;
}

/**
 * The small base of every element, so no bundle carries Lit's `ReactiveElement`: what our
 * elements need of it and no more. Properties declared like Lit's (`static properties`,
 * `createProperty`: `type` Boolean or a function from the attribute's text, `attribute`,
 * `reflect`) follow their attributes; setting one requests an update, batched in a microtask;
 * `update(changes)` then draws (the counter with its own DOM code, the cards with lit-html),
 * between the controllers' `hostUpdate` and `hostUpdated`. It is a `ReactiveControllerHost`, so
 * the hub's and the frame's controllers work on it as on a Lit element. `styles` are adopted
 * into the open shadow root as constructed style sheets (which a strict Content-Security-Policy
 * allows, and every browser we support has).
 */
export abstract class LeanElement extends HTMLElement implements ReactiveControllerHost {
  static properties: PropertyDeclarations = {};
  static styles?: Styles;
  /** `styles` flattened, when the class is finalized; features registered later add theirs. */
  static elementStyles: (StyleSheet | CSSResultOrNative)[] = [];

  /** Registers the element unless the name is taken (a page that loads two copies warns, not throws). */
  static define(name: string): void {
    defineElement(name, this);
  }

  static get observedAttributes(): string[] {
    this.finalize();
    return [...attributesOf.get(this)!.keys()];
  }

  /** Reads the class's `properties` and `styles`, once, when it is defined or first given a property. */
  protected static finalize(): void {
    if (attributesOf.has(this)) return;
    const parent = Object.getPrototypeOf(this) as typeof LeanElement;
    if (parent !== LeanElement) parent.finalize();
    attributesOf.set(this, new Map(attributesOf.get(parent)));
    this.elementStyles = [this.styles ?? []].flat(Infinity as 1) as (StyleSheet | CSSResultOrNative)[];
    if (Object.hasOwn(this, 'properties'))
      for (const [name, options] of Object.entries(this.properties)) this.createProperty(name, options);
  }

  static createProperty(name: string, options: PropertyDeclaration = {}): void {
    this.finalize();
    const { attribute = true } = options;
    if (attribute)
      attributesOf.get(this)!.set(attribute === true ? name.toLowerCase() : attribute, [name, options]);
    Object.defineProperty(this.prototype, name, {
      configurable: true,
      get(this: LeanElement) {
        return this.#values.get(name);
      },
      set(this: LeanElement, value: unknown) {
        const old = this.#values.get(name);
        if (Object.is(old, value)) return;
        if (!this.#changes.has(name)) this.#changes.set(name, old);
        this.#values.set(name, value);
        this.requestUpdate();
      },
    });
  }

  readonly #values = new Map<string, unknown>();
  #changes: Changes = new Map();
  readonly #controllers = new Set<ReactiveController>();
  #pending: Promise<boolean> | undefined;
  #updated = false;
  #reflecting: string | undefined;
  /** Properties a page set on the element before it was defined, which hide the accessors: set again at its first connection (as Lit does). */
  #early: object | undefined;

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    // The element's own keys before its class's fields are set: only what the page set.
    this.#early = { ...this };
    for (const name in this.#early) delete this[name as keyof this];
  }

  /** The open shadow root the element draws in. */
  get renderRoot(): ShadowRoot {
    return this.shadowRoot!;
  }

  /** Resolves after the update pending now, if any: with `false` if another was requested meanwhile. */
  get updateComplete(): Promise<boolean> {
    return this.#pending ?? Promise.resolve(true);
  }

  addController(controller: ReactiveController): void {
    this.#controllers.add(controller);
    if (this.isConnected) controller.hostConnected?.();
  }

  removeController(controller: ReactiveController): void {
    this.#controllers.delete(controller);
  }

  connectedCallback(): void {
    if (!this.#updated)
      this.renderRoot.adoptedStyleSheets = (this.constructor as typeof LeanElement).elementStyles.map(
        (sheet) => (sheet instanceof CSSStyleSheet ? sheet : sheet.styleSheet!),
      );
    Object.assign(this, this.#early);
    this.#early = undefined;
    for (const controller of this.#controllers) controller.hostConnected?.();
    if (!this.#updated || this.#changes.size > 0) this.requestUpdate();
  }

  disconnectedCallback(): void {
    for (const controller of this.#controllers) controller.hostDisconnected?.();
  }

  attributeChangedCallback(attribute: string, _old: string | null, value: string | null): void {
    if (attribute === this.#reflecting) return;
    const [name, options] = attributesOf.get(this.constructor)!.get(attribute)!;
    this[name as keyof this] = fromAttribute(value, options.type) as never;
  }

  /**
   * Asks for an update in a microtask (one for any number of requests), while connected. As in
   * Lit, what `willUpdate` sets is part of the update under way, not the cause of another.
   */
  requestUpdate(): void {
    if (this.isConnected)
      this.#pending ??= Promise.resolve().then(() => {
        this.willUpdate?.(this.#changes);
        this.#pending = undefined;
        this.#perform();
        return this.#pending === undefined;
      });
  }

  /** Called, if defined, before each update, with the changes so far: properties it sets join them. */
  protected willUpdate?(changes: Changes): void;

  /** Draws what `changes` (and whatever else the element follows) asks for. */
  protected abstract update(changes: Changes): void;

  /** Called, if defined, after each update, once the controllers' `hostUpdated` have run. */
  protected updated?(changes: Changes): void;

  #perform(): void {
    const changes = this.#changes;
    this.#changes = new Map();
    for (const [attribute, [name, options]] of attributesOf.get(this.constructor)!)
      if (options.reflect && changes.has(name)) this.#reflect(attribute, this.#values.get(name));
    for (const controller of this.#controllers) controller.hostUpdate?.();
    this.update(changes);
    this.#updated = true;
    for (const controller of this.#controllers) controller.hostUpdated?.();
    this.updated?.(changes);
  }

  #reflect(attribute: string, value: unknown): void {
    this.#reflecting = attribute;
    if (value === false || value == null) this.removeAttribute(attribute);
    else this.setAttribute(attribute, value === true ? '' : String(value));
    this.#reflecting = undefined;
  }
}
