// Where the browser tests find Chromium, and what happens when they cannot.
//
// Debian's package puts it at /usr/bin/chromium; CHROMIUM_PATH names another. Without a browser the
// suite is skipped on a developer's machine (with a line saying so), but under CI (the CI variable
// set, as .ci/run and GitHub Actions do) a missing browser is a failing test: a browser suite that
// silently does not run guards nothing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { describe, it } from 'vitest';

function findChromium(): string | null {
  const named = process.env.CHROMIUM_PATH;
  if (named) return existsSync(named) ? named : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
    return found || null;
  } catch {
    return null;
  }
}

export const CHROMIUM = findChromium();
const where = process.env.CHROMIUM_PATH ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH}` : '/usr/bin/chromium or on PATH';

/** `describe` for a suite that needs Chromium: runs it, skips it loudly, or fails under CI. */
export function browserSuite(name: string, body: () => void): void {
  if (CHROMIUM) {
    describe(name, body);
  } else if (process.env.CI) {
    describe(name, () => {
      it('needs Chromium', () => {
        throw new Error(`no Chromium found (${where}); under CI the browser suite must run: apt-get install -y chromium`);
      });
    });
  } else {
    console.warn(`[browser tests] skipped "${name}": no Chromium found (${where}); apt-get install -y chromium`);
    describe.skip(name, body);
  }
}

/** The flags the closed network needs: without the background-networking ones Chromium floods it with refused connections. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no Chromium');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
