import { describe, expect, it } from 'vitest';
import { canonicalJson, toolsSha256 } from '../src/lib/index.ts';

describe('canonicalJson(value)', () => {
  it('sorts keys and object-array items but keeps other arrays in order', () => {
    expect(canonicalJson({ b: [3, 1], a: [{ z: 1 }, { a: 2 }] })).toBe('{"a":[{"a":2},{"z":1}],"b":[3,1]}');
  });
  it('toolsSha256 ignores tool order', () => {
    expect(toolsSha256([{ name: 'a' }, { name: 'b' }])).toBe(toolsSha256([{ name: 'b' }, { name: 'a' }]));
  });
});
