// Reads one file out of a zip archive (a Python wheel is one) with Node alone: the central directory gives the
// entry's place, size and CRC-32; its bytes are inflated as a stream into the destination, and the size and
// CRC-32 of what was written are checked. Stored and deflated entries only; no ZIP64, no encryption (a wheel
// needs neither).
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const END_RECORD_SIZE = 22;
const MAX_COMMENT = 0xffff;

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header. */
  headerOffset: number;
  flags: number;
}

export class ZipError extends Error {
  constructor(zipPath: string, problem: string) {
    super(`${zipPath}: ${problem}`);
    this.name = 'ZipError';
  }
}

/** The entries of the archive's central directory. */
export async function listZipEntries(zipPath: string): Promise<ZipEntry[]> {
  const file = await open(zipPath, 'r');
  try {
    const { size } = await file.stat();
    if (size < END_RECORD_SIZE) throw new ZipError(zipPath, 'too short to be a zip archive');
    const tailLength = Math.min(size, END_RECORD_SIZE + MAX_COMMENT);
    const tail = Buffer.alloc(tailLength);
    await file.read(tail, 0, tailLength, size - tailLength);
    let end = -1;
    for (let at = tailLength - END_RECORD_SIZE; at >= 0; at--) {
      if (tail.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
        end = at;
        break;
      }
    }
    if (end < 0) throw new ZipError(zipPath, 'no end-of-central-directory record (not a zip archive?)');
    const count = tail.readUInt16LE(end + 10);
    const directorySize = tail.readUInt32LE(end + 12);
    const directoryOffset = tail.readUInt32LE(end + 16);
    if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
      throw new ZipError(zipPath, 'ZIP64 archives are not supported');
    }
    if (directoryOffset + directorySize > size) {
      throw new ZipError(zipPath, 'the central directory lies beyond the end of the file (truncated?)');
    }
    const directory = Buffer.alloc(directorySize);
    await file.read(directory, 0, directorySize, directoryOffset);

    const entries: ZipEntry[] = [];
    let at = 0;
    for (let index = 0; index < count; index++) {
      if (at + 46 > directory.length || directory.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY) {
        throw new ZipError(zipPath, `central directory entry ${index} is damaged`);
      }
      const nameLength = directory.readUInt16LE(at + 28);
      const extraLength = directory.readUInt16LE(at + 30);
      const commentLength = directory.readUInt16LE(at + 32);
      entries.push({
        flags: directory.readUInt16LE(at + 8),
        method: directory.readUInt16LE(at + 10),
        crc32: directory.readUInt32LE(at + 16),
        compressedSize: directory.readUInt32LE(at + 20),
        size: directory.readUInt32LE(at + 24),
        headerOffset: directory.readUInt32LE(at + 42),
        name: directory.toString('utf8', at + 46, at + 46 + nameLength),
      });
      at += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await file.close();
  }
}

/**
 * Writes the entry `name` of the archive to `destination` (created with `mode`), checking its size and CRC-32.
 * On any failure nothing is left at `destination`.
 */
export async function extractZipEntry(
  zipPath: string,
  name: string,
  destination: string,
  mode = 0o644,
): Promise<ZipEntry> {
  const entry = (await listZipEntries(zipPath)).find((candidate) => candidate.name === name);
  if (!entry) throw new ZipError(zipPath, `has no entry ${name}`);
  if (entry.flags & 0x1) throw new ZipError(zipPath, `${name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipError(zipPath, `${name} uses compression method ${entry.method} (only stored and deflated)`);
  }

  const file = await open(zipPath, 'r');
  let dataStart: number;
  try {
    const header = Buffer.alloc(30);
    await file.read(header, 0, 30, entry.headerOffset);
    if (header.readUInt32LE(0) !== LOCAL_FILE_HEADER) {
      throw new ZipError(zipPath, `the local header of ${name} is damaged`);
    }
    dataStart = entry.headerOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    await file.close();
  }

  let written = 0;
  let checksum = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      if (written > entry.size) {
        done(new ZipError(zipPath, `${name} inflates to more than the ${entry.size} bytes it declares`));
        return;
      }
      checksum = crc32(chunk, checksum);
      done(null, chunk);
    },
  });
  // An empty entry still has to become an empty file: `end` is inclusive, so a zero-length read needs a stream
  // that ends at once.
  const source =
    entry.compressedSize === 0
      ? Readable.from([])
      : createReadStream(zipPath, { start: dataStart, end: dataStart + entry.compressedSize - 1 });
  const output = createWriteStream(destination, { mode });
  try {
    if (entry.method === 8) await pipeline(source, createInflateRaw(), check, output);
    else await pipeline(source, check, output);
    if (written !== entry.size) {
      throw new ZipError(zipPath, `${name} gave ${written} bytes, not the ${entry.size} it declares`);
    }
    if (checksum !== entry.crc32) {
      throw new ZipError(zipPath, `${name} fails its CRC-32 check (damaged archive)`);
    }
  } catch (error) {
    await rm(destination, { force: true });
    throw error;
  }
  return entry;
}
