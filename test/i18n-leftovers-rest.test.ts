/** No English left in the rest of LANGUAGES; the suite's own checks (test/helpers/leftovers-page.ts). */
import { describeLeftovers, LANGUAGES } from './helpers/leftovers-page.ts';

describeLeftovers(LANGUAGES.slice(6), true);
