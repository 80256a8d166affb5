// weekMonday: the week a day belongs to, for the views over time (ISO weeks, Monday to Sunday, UTC).
import { describe, expect, it } from 'vitest';
import { weekMonday } from '../../src/lib/utc-week.ts';

describe('weekMonday(day)', () => {
  it('names a week by its Monday: Monday is its own, Sunday the week before (the near miss)', () => {
    expect(weekMonday('2026-03-02')).toBe('2026-03-02'); // a Monday
    expect(weekMonday('2026-03-01')).toBe('2026-02-23'); // the Sunday before it
    expect(weekMonday('2026-03-08')).toBe('2026-03-02'); // the Sunday after it
  });

  it('crosses month, year and leap-day ends', () => {
    expect(weekMonday('2026-01-01')).toBe('2025-12-29');
    expect(weekMonday('2024-03-01')).toBe('2024-02-26');
    expect(weekMonday('2024-02-29')).toBe('2024-02-26');
  });

  it('gives every day of one week the same Monday, and the next day the next one', () => {
    const days = Array.from({ length: 8 }, (_, i) => new Date(Date.UTC(2025, 11, 15 + i)).toISOString().slice(0, 10));
    expect(days.map(weekMonday)).toEqual([...Array(7).fill('2025-12-15'), '2025-12-22']);
  });

  it('refuses text that is not a day', () => {
    expect(() => weekMonday('2026-13-01')).toThrow(RangeError);
    expect(() => weekMonday('')).toThrow(RangeError);
  });
});
