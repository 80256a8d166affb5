// The README's screenshot of the dashboard, made from the demo's site so it shows what the product
// draws today: `npm run demo -- --no-serve && npm run screenshot`. Serves the built site
// on 127.0.0.1 (an ephemeral port), opens / in Debian's Chromium (CHROMIUM_PATH names another) at
// 1280×640, and writes the first screen, as a reader sees it, to docs/dashboard.png.
//   npm run screenshot [-- --site <built site, default .demo/site>] [--out <png, default docs/dashboard.png>]
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { listenStatic } from '../sandbox/demo.ts';

const { values } = parseArgs({ options: { site: { type: 'string', default: '.demo/site' }, out: { type: 'string', default: 'docs/dashboard.png' } } });
const site = path.resolve(values.site);
if (!existsSync(path.join(site, 'index.html'))) throw new Error(`no built site at ${site}: run npm run demo -- --no-serve first`);
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath} (apt-get install -y chromium, or set CHROMIUM_PATH)`);

const server = await listenStatic(site, 0);
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 640 }, deviceScaleFactor: 1 });
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { waitUntil: 'load' });
  await page.screenshot({ path: path.resolve(values.out) });
  process.stdout.write(`wrote ${values.out} (the dashboard of ${path.relative(process.cwd(), site) || site}, 1280×640)\n`);
} finally {
  await browser.close();
  server.close();
}
