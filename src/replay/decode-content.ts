import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, zstdDecompressSync } from 'node:zlib';

/**
 * Undoes a Content-Encoding on a recorded body. vcrpy stores bodies decoded
 * when `decode_compressed_response` is on (and then drops the header), but
 * without it the body is the compressed bytes as `!!binary` next to the
 * original Content-Encoding. The replay server always answers without
 * Content-Encoding, so such bodies are decoded once, at load time.
 *
 * Returns the bytes unchanged when a coding is unknown or the bytes do not
 * decode: they were then most likely stored decoded already.
 */
export function decodeContent(bytes: Uint8Array, contentEncoding: string | undefined): Uint8Array {
  if (contentEncoding === undefined) return bytes;
  // Codings are listed in the order they were applied; undo them backwards.
  const codings = contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let current = bytes;
  for (const coding of codings) {
    const decoded = decodeOne(current, coding);
    if (decoded === undefined) return bytes;
    current = decoded;
  }
  return current;
}

function decodeOne(bytes: Uint8Array, coding: string): Uint8Array | undefined {
  try {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(bytes);
      case 'deflate':
        // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
        try {
          return inflateSync(bytes);
        } catch {
          return inflateRawSync(bytes);
        }
      case 'br':
        return brotliDecompressSync(bytes);
      case 'zstd':
        return zstdDecompressSync(bytes);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}
