/** No English left in languages 4 to 6 of LANGUAGES (test/helpers/leftovers-page.ts). */
import { describeLeftovers, LANGUAGES } from './helpers/leftovers-page.ts';

describeLeftovers(LANGUAGES.slice(3, 6), false);
