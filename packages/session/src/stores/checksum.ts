/**
 * CRC-32 (the IEEE polynomial of zlib, gzip and PNG), which both durable stores keep beside
 * every event so that load notices an event changed after it was written (L11.1).
 */

const TABLE = (() => {
  const table = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  return table
})()

/** The CRC-32 of `bytes[start, end)`, as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = -1
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}

/** `crc32` as the 8 lowercase hex digits the file store writes. */
export function crc32Hex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  return crc32(bytes, start, end).toString(16).padStart(8, '0')
}

/** The CRC-32 of the UTF-8 bytes of `text`. */
export function crc32Text(text: string): number {
  return crc32(Buffer.from(text))
}
