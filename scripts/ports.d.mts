/** Types of scripts/ports.mjs. */
export function pickPort(): number;
