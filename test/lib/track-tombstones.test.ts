import { describe, expect, it } from 'vitest';
import { trackTombstones } from '../../src/lib/track-tombstones.ts';

describe('trackTombstones(versions)', () => {
  it('keeps, per version, the last known definition of every tool seen earlier and absent now', () => {
    const a1 = { name: 'a', description: 'one' };
    const a2 = { name: 'a', description: 'two' };
    const b = { name: 'b' };
    const t = trackTombstones([[a1, b], [b], [a2, b], [b], []]);
    expect(t.map((m) => Object.fromEntries(m))).toEqual([{}, { a: a1 }, {}, { a: a2 }, { a: a2, b }]);
  });
  it('returns [] for no versions', () => {
    expect(trackTombstones([])).toEqual([]);
  });
});
