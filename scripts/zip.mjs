/**
 * A zip archive of files in memory (deflated, no encryption, no zip64): enough for the WordPress
 * plugin, which WordPress unpacks with ZipArchive or, without PHP's zip extension, PclZip.
 */
import { crc32, deflateRawSync } from 'node:zlib';

/** MS-DOS date and time fields of a Date (2-second precision, local time as zip expects). */
function dosDateTime(date) {
  const time = (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2);
  const day = ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate();
  return { time, day };
}

/**
 * @param {{ path: string, data: Buffer }[]} files  paths with forward slashes; folders are implied
 * @param {Date} modified  one date for every entry, so the same input makes the same bytes
 * @returns {Buffer}
 */
export function zip(files, modified = new Date(2000, 0, 1)) {
  const { time, day } = dosDateTime(modified);
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { path, data } of files) {
    const name = Buffer.from(path, 'utf8');
    const deflated = deflateRawSync(data, { level: 9 });
    const checksum = crc32(data);
    // version 2.0, UTF-8 names (bit 11), deflate (8)
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0800, 6);
    header.writeUInt16LE(8, 8);
    header.writeUInt16LE(time, 10);
    header.writeUInt16LE(day, 12);
    header.writeUInt32LE(checksum, 14);
    header.writeUInt32LE(deflated.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by Unix, version 2.0: the permissions below apply
    header.copy(central, 6, 4, 30);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(header, name, deflated);
    centrals.push(central, name);
    offset += header.length + name.length + deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The paths in a zip archive, from its central directory (no zip64, no comment). */
export function zipEntryNames(archive) {
  const end = archive.length - 22;
  if (archive.readUInt32LE(end) !== 0x06054b50) throw new Error('not a zip archive without a comment');
  const names = [];
  let offset = archive.readUInt32LE(end + 16);
  for (let index = 0; index < archive.readUInt16LE(end + 10); index++) {
    const nameLength = archive.readUInt16LE(offset + 28);
    names.push(archive.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + archive.readUInt16LE(offset + 30) + archive.readUInt16LE(offset + 32);
  }
  return names;
}
