/**
 * Splitting a snapshot into rows under the 2 MB row limit, each with a CRC-32 so that a damaged or
 * missing chunk is detected and the index rebuilt from rows instead of served wrong.
 */
const CHUNK_BYTES = 1024 * 1024;

/**
 * CRC-32 (IEEE) tables for slicing-by-8: eight bytes per step instead of one. A cold start checks
 * every chunk before restoring, so at 100,000 tools this runs over ~40 MB on the hot path.
 */
const CRC_TABLES = (() => {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++)
    for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n]! >>> 8) ^ t[t[(k - 1) * 256 + n]! & 0xff]!;
  return t;
})();

export function crc32(bytes: Uint8Array): number {
  const t = CRC_TABLES;
  let crc = -1;
  let i = 0;
  const end8 = bytes.length - (bytes.length % 8);
  for (; i < end8; i += 8) {
    const a = crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    crc =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^
      t[512 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < bytes.length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** Cuts a sequence of parts into chunks of `size` bytes (the last may be shorter), one at a time. */
export function* chunked(parts: readonly Uint8Array[], size = CHUNK_BYTES): Generator<Uint8Array> {
  let chunk = new Uint8Array(size);
  let filled = 0;
  for (const part of parts) {
    let at = 0;
    while (at < part.byteLength) {
      const n = Math.min(size - filled, part.byteLength - at);
      chunk.set(part.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === size) {
        yield chunk;
        chunk = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield chunk.subarray(0, filled);
}
