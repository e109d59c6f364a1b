/** Types of scripts/zip.mjs. */
export function zip(files: { path: string; data: Buffer }[], modified?: Date): Buffer;
export function zipEntryNames(archive: Buffer): string[];
