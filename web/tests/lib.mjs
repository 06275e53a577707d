// Shared helpers of the browser tests: the system Chromium (never a downloaded one),
// page error collection, polling, and a small assertion helper.
import { chromium } from 'playwright-core';

export const ARTIFACTS = process.env.ARTIFACTS || new URL('../../artifacts', import.meta.url).pathname;

export async function launch() {
  const args = [
    '--headless=new', '--disable-gpu', '--disable-dev-shm-usage',
    '--disable-background-networking', '--disable-component-update', '--no-first-run',
  ];
  if (process.getuid && process.getuid() === 0) args.unshift('--no-sandbox');
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args });
}

/** Opens a page that records console errors, page errors, dialogs and CSP violations. */
export async function openPage(browser, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport || { width: 1400, height: 900 } });
  const page = await context.newPage();
  const problems = { errors: [], dialogs: [], console: [] };
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
  });
  page.on('dialog', async (d) => {
    problems.dialogs.push(d.message());
    await d.dismiss();
  });
  return { context, page, problems };
}

export async function until(what, fn, timeoutMs = 30000, everyMs = 100) {
  const started = Date.now();
  let last;
  while (Date.now() - started < timeoutMs) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last})`);
}

let failures = 0;
export function check(cond, what) {
  if (cond) {
    console.log(`  ok   ${what}`);
  } else {
    failures += 1;
    console.log(`  FAIL ${what}`);
  }
}

export function done(name) {
  if (failures) {
    console.log(`${name}: ${failures} check(s) failed`);
    process.exit(1);
  }
  console.log(`${name}: all checks passed`);
}

/** GET a JSON document (node side, straight to the proxy). */
export async function getJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`GET ${url}: ${r.status} ${(await r.text()).slice(0, 200)}`);
  return r.json();
}
