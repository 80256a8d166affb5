// Temp folders a test file makes and removes when it ends: `const tmp = scratchDirs();` at the top of
// the file, then `tmp('prefix-')` gives a fresh folder under the OS temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

export function scratchDirs(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  return (prefix) => {
    const d = mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(d);
    return d;
  };
}
