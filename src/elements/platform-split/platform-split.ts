/** Registers <platform-split>; the class alone, registering nothing, is in platform-split.component.ts. */
import { PlatformSplit } from './platform-split.component.ts';

export * from './platform-split.component.ts';

PlatformSplit.define('platform-split');

declare global {
  interface HTMLElementTagNameMap {
    'platform-split': PlatformSplit;
  }
}
