// The lookup's index without JavaScript (src/site/set-prefixes.ts): hashes grouped by their first two
// characters, and each set's span over all the servers that served it.
import { describe, expect, it } from 'vitest';
import { setPrefixes, setSpan } from '../../src/site/set-prefixes.ts';

const server = (firstSeen: string, lastSeen: string) => ({ target: 't', slug: 's', firstSeen, lastSeen, observations: 1 });
const set = (setHash: string) => ({ setHash, bodySha256: 'b', servers: [] });

describe('setPrefixes(sets)', () => {
  it('counts hashes by their first two characters, in order', () => {
    expect(setPrefixes([set('ab12'), set('0f99'), set('ab00'), set('ff00')])).toEqual([
      { prefix: '0f', count: 1 },
      { prefix: 'ab', count: 2 },
      { prefix: 'ff', count: 1 },
    ]);
    expect(setPrefixes([])).toEqual([]);
  });
});

describe('setSpan(set)', () => {
  it('the earliest first day and the latest last day of any server, not of the first one listed', () => {
    const span = setSpan({ servers: [server('2026-03-02T03:00:00.000Z', '2026-03-09T03:00:00.000Z'), server('2026-01-05T23:59:59.999Z', '2026-02-01T00:00:00.000Z'), server('2026-04-01T00:00:00.000Z', '2026-04-30T03:00:00.000Z')] });
    expect(span).toEqual({ first: '2026-01-05', last: '2026-04-30' });
  });

  it('one server: its own days', () => {
    expect(setSpan({ servers: [server('2026-01-05T03:00:00.000Z', '2026-01-05T03:00:00.000Z')] })).toEqual({ first: '2026-01-05', last: '2026-01-05' });
  });
});
