/** No English left in the first five languages of LANGUAGES (test/helpers/leftovers-page.ts). */
import { describeLeftovers, LANGUAGES } from './helpers/leftovers-page.ts';

describeLeftovers(LANGUAGES.slice(0, 5), false);
