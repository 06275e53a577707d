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

/**
 * Checks that the table converges to the server's truth: the rows shown and the
 * version in the status bar (rendered in the same frame) against the server's Exact
 * list at that version. `path` may carry a query (a selector).
 */
export async function convergeTo(page, base, path, what, tries = 80) {
  let last = '';
  for (let i = 0; i < tries; i++) {
    const mine = await page.evaluate(() => {
      const st = document.getElementById('status');
      if (st.dataset.phase !== 'watching' || st.dataset.synced !== 'true') return null;
      return {
        rv: st.dataset.rv,
        keys: [...document.querySelectorAll('.row:not(.gone)')].map((r) => r.dataset.key),
        total: Number(document.getElementById('total-count').textContent),
      };
    });
    if (mine && mine.rv) {
      try {
        const sep = path.includes('?') ? '&' : '?';
        const list = await getJson(`${base}${path}${sep}resourceVersion=${mine.rv}&resourceVersionMatch=Exact`);
        const truth = list.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
        const got = [...mine.keys].sort();
        last = `rv ${mine.rv}: ${got.length} rows, ${mine.total} held, ${truth.length} on the server`;
        if (mine.total === truth.length && got.length === truth.length && got.every((k, j) => k === truth[j])) {
          check(true, `${what} converges to the server's truth (${last})`);
          return true;
        }
      } catch (e) {
        last = String(e);
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  check(false, `${what} converges to the server's truth (${last})`);
  return false;
}
