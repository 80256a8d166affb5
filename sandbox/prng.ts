// Seeded randomness for the local world. No Math.random, no clock: every draw is a function of a key
// string such as `${seed}|${targetName}|drift`, so a target behaves the same whatever the world's size.

/** 32-bit FNV-1a followed by a murmur3 finaliser: a well-mixed seed from any string. */
export function hash32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) from a key alone (one draw, no state). */
export function unit(key: string): number {
  return hash32(key) / 0x1_0000_0000;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Index drawn by weight. */
  weighted(weights: readonly number[]): number;
}

/** mulberry32, seeded from a key string. */
export function rng(key: string): Rng {
  let a = hash32(key) || 0x9e3779b9;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    weighted: (weights) => {
      const total = weights.reduce((s, w) => s + w, 0);
      let x = next() * total;
      for (let i = 0; i < weights.length; i++) {
        x -= weights[i] ?? 0;
        if (x < 0) return i;
      }
      return weights.length - 1;
    },
  };
}
