// The body reader and the small helpers of http.ts, on in-memory streams (the redirect and address
// tests drive send() against loopback servers). Added for the collector mutation run (docs/MUTATION.md).
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GUARD } from '../../collector/errors.ts';
import { asBuffer, formatBytes, header, MiB, readCapped } from '../../collector/http.ts';

const stream = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c)));

describe('readCapped(body, cap, what, truncate)', () => {
  it('reads a body of exactly cap bytes whole', async () => {
    const body = stream('abc', 'de');
    expect((await readCapped(body, 5, 'body')).toString()).toBe('abcde');
  });
  it('refuses a body one byte over the cap, naming it and the cap, and destroys the stream', async () => {
    const body = stream('abc', 'def');
    await expect(readCapped(body, 5, 'error body')).rejects.toMatchObject({ code: GUARD.overCap, message: 'error body over 5 bytes cap' });
    expect(body.destroyed).toBe(true);
  });
  it('with truncate, keeps the first cap bytes and stops reading', async () => {
    const body = stream('abc', 'defgh', 'ij');
    expect((await readCapped(body, 5, 'body', true)).toString()).toBe('abcde');
    expect(body.destroyed).toBe(true);
  });
  it('cuts at the cap when the first chunk alone is over it', async () => {
    expect((await readCapped(stream('abcdefgh'), 3, 'body', true)).toString()).toBe('abc');
  });
});

describe('formatBytes(n)', () => {
  it.each([
    [8 * MiB, '8 MiB'],
    [MiB, '1 MiB'],
    [64 * 1024, '64 KiB'],
    [1536 * 1024, '1536 KiB'],
    [1000, '1000 bytes'],
    [5, '5 bytes'],
  ])('writes %i as %j', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});

describe('header(headers, name) and asBuffer(chunk)', () => {
  it('gives the first of repeated values, the value, or null', () => {
    expect(header({ a: ['1', '2'], b: 'x' }, 'a')).toBe('1');
    expect(header({ a: ['1', '2'], b: 'x' }, 'b')).toBe('x');
    expect(header({ a: [] }, 'a')).toBeNull();
    expect(header({}, 'c')).toBeNull();
  });
  it('views a Uint8Array slice as a Buffer without copying', () => {
    const bytes = new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 4);
    const buf = asBuffer(bytes);
    expect([...buf]).toEqual([2, 3, 4]);
    bytes[0] = 9;
    expect(buf[0]).toBe(9);
  });
});
