/** Registers <headline-tests>; the class alone, registering nothing, is in headline-tests.component.ts. */
import { HeadlineTests } from './headline-tests.component.ts';

export * from './headline-tests.component.ts';

HeadlineTests.define('headline-tests');

declare global {
  interface HTMLElementTagNameMap {
    'headline-tests': HeadlineTests;
  }
}
