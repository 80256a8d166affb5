// MCP_SCHEMA_SHARDS (src/site/settings.ts): unset or "auto" lets the archive's size choose the loader's
// shards; a positive integer forces that many; anything else stops the build with one sentence.
import { afterEach, describe, expect, it } from 'vitest';
import { shards } from '../../src/site/settings.ts';

const saved = process.env.MCP_SCHEMA_SHARDS;
afterEach(() => {
  if (saved === undefined) delete process.env.MCP_SCHEMA_SHARDS;
  else process.env.MCP_SCHEMA_SHARDS = saved;
});

const withValue = (v: string | undefined) => {
  if (v === undefined) delete process.env.MCP_SCHEMA_SHARDS;
  else process.env.MCP_SCHEMA_SHARDS = v;
  return shards();
};

describe('MCP_SCHEMA_SHARDS', () => {
  it('is the archive size\'s choice when unset, empty or "auto"', () => {
    expect(withValue(undefined)).toBe('auto');
    expect(withValue('')).toBe('auto');
    expect(withValue('auto')).toBe('auto');
  });

  it('forces a positive whole number, from 1 up', () => {
    expect(withValue('1')).toBe(1);
    expect(withValue('3')).toBe(3);
  });

  it('refuses 0, fractions, negatives and words, naming the variable and the value', () => {
    for (const v of ['0', '-2', '1.5', 'three', 'Auto']) expect(() => withValue(v), v).toThrow(/MCP_SCHEMA_SHARDS must be a positive integer or "auto", got "/);
  });
});
