// Text metadata in a PNG (PNG specification, 3rd edition, §11.3.3): a chart pasted or downloaded
// alone still says what it is, where it came from and under which licence. sharp (libvips) writes no
// text chunks of its own, so we insert them after IHDR: tEXt (Latin-1) when the text allows, iTXt
// (UTF-8, uncompressed) otherwise, with the registered keywords (Title, Description, Source,
// Copyright, Creation Time, Comment). Pure and tiny: no library is needed to append a chunk.
import { crc32 } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The PNG with one text chunk per entry inserted after its IHDR chunk. */
export function withPngText(png: Buffer, entries: readonly (readonly [keyword: string, text: string])[]): Buffer {
  if (!png.subarray(0, 8).equals(SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG (no signature or IHDR first)');
  const ihdrEnd = 8 + 12 + png.readUInt32BE(8);
  const chunks = entries.map(([k, v]) => textChunk(k, v));
  return Buffer.concat([png.subarray(0, ihdrEnd), ...chunks, png.subarray(ihdrEnd)]);
}

/** Every tEXt and iTXt chunk of a PNG, as keyword → text (tests, and anyone checking a download). */
export function readPngText(png: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    const nul = data.indexOf(0);
    if (type === 'tEXt' && nul > 0) out.set(data.toString('latin1', 0, nul), data.toString('latin1', nul + 1));
    if (type === 'iTXt' && nul > 0) {
      // keyword NUL, compression flag, method, language tag NUL, translated keyword NUL, text
      let p = nul + 3;
      p = data.indexOf(0, p) + 1;
      p = data.indexOf(0, p) + 1;
      out.set(data.toString('latin1', 0, nul), data.toString('utf8', p));
    }
    at += 12 + length;
  }
  return out;
}

/** Width and height from the IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

function textChunk(keyword: string, text: string): Buffer {
  if (!/^[\x20-\x7e]{1,79}$/.test(keyword) || keyword !== keyword.trim()) throw new Error(`PNG text keyword ${JSON.stringify(keyword)} must be 1-79 printable Latin-1 characters`);
  const latin1 = /^[\x0a\x20-\x7e\xa0-\xff]*$/.test(text);
  const data = latin1
    ? Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')])
    : Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(text, 'utf8')]);
  return chunk(latin1 ? 'tEXt' : 'iTXt', data);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}
