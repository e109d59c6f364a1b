/**
 * Reader-visible text the base class adds for the network view (several sites in one element)
 * and the freeze control, in English: one object, to move into the message catalog as it is.
 */
const updates = new Intl.PluralRules('en');

export const PULSE_ELEMENT_STRINGS = {
  partial: (sites: string) => `Partial: no fresh data from ${sites}.`,
  siteFailed: (site: string, reason: string) => `${site}: ${reason}`,
  tooManySources: (max: number) => `src takes at most ${max} addresses, one per site.`,
  oneAddress: (expected: string) => `src takes one address: ${expected}`,
  freeze: 'Freeze',
  frozenNote: 'Frozen',
  waiting: (count: number) => (count === 0 ? 'No update waiting' : `${count} ${updates.select(count) === 'one' ? 'update' : 'updates'} waiting`),
  frozenAnnouncement: 'Frozen: rows stay still while updates arrive.',
  resumed: 'Showing the latest update.',
} as const;
