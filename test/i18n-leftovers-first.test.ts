/** No English left in the first three languages of LANGUAGES (test/helpers/leftovers-page.ts). */
import { describeLeftovers, LANGUAGES } from './helpers/leftovers-page.ts';

describeLeftovers(LANGUAGES.slice(0, 3), false);
