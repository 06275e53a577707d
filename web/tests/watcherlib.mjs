// Helpers of the Watcher's tests (watcher.mjs, package.mjs): Chromium with a forced
// garbage collector, a page that imports the package, and convergence of a watcher's
// snapshot to the server's truth.
import { chromium } from 'playwright-core';
import { check, getJson } from './lib.mjs';

/** The system Chromium, with `gc()` exposed to pages. */
export async function launchWithGc() {
  const args = [
    '--headless=new', '--disable-gpu', '--disable-dev-shm-usage',
    '--disable-background-networking', '--disable-component-update', '--no-first-run',
    '--js-flags=--expose-gc',
  ];
  if (process.getuid && process.getuid() === 0) args.unshift('--no-sandbox');
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args });
}

/**
 * A blank page on the proxy's origin (served by the test itself) that has imported the
 * package from `dist/npm/` as `window.kl` (`init` not yet called unless `ready`).
 */
export async function packagePage(browser, base, { ready = true } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = { errors: [], requests: [], failed: [] };
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('request', (r) => problems.requests.push({ url: r.url(), at: Date.now() }));
  page.on('requestfailed', (r) => problems.failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  const url = `${base}/ui/watcher-test.html`;
  await page.route(url, (route) => route.fulfill({
    contentType: 'text/html',
    body: '<!doctype html><meta charset="utf-8"><title>Watcher tests</title><p>Watcher tests</p>',
  }));
  await page.goto(url);
  await page.evaluate(async (ready) => {
    window.kl = await import('/ui/npm/index.js');
    if (ready) await window.kl.default();
  }, ready);
  return { context, page, problems };
}

/** `namespace/name@resourceVersion` of each object, sorted. */
export function keys(objects) {
  return objects.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
}

/**
 * Waits until `read()` (in the page: `{ rv, objects }` or null while not synced and
 * watching) equals the server's Exact list of `path` at that version.
 */
export async function converges(page, base, path, read, what, tries = 80) {
  let last = '';
  for (let i = 0; i < tries; i++) {
    const mine = await page.evaluate(read);
    if (mine) {
      try {
        const sep = path.includes('?') ? '&' : '?';
        const list = await getJson(`${base}${path}${sep}resourceVersion=${mine.rv}&resourceVersionMatch=Exact`);
        const truth = keys(list.items);
        const got = [...mine.objects].sort();
        last = `rv ${mine.rv}: ${got.length} held, ${truth.length} on the server`;
        if (truth.length === got.length && truth.every((k, j) => k === got[j])) {
          check(true, `${what} (${last})`);
          return true;
        }
      } catch (e) {
        last = String(e);
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  check(false, `${what} (${last})`);
  return false;
}

/** The Accept of a Table request (kubectl's first choice). */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** The server's own Table of `path` at `rv` exactly (`null` if it answered otherwise). */
export async function serverTable(base, path, rv) {
  const sep = path.includes('?') ? '&' : '?';
  const r = await fetch(`${base}${path}${sep}resourceVersion=${rv}&resourceVersionMatch=Exact`, { headers: { Accept: TABLE_ACCEPT } });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  const table = await r.json();
  return table.kind === 'Table' ? table : null;
}

/** A column as the JS API gives it, from a server's `columnDefinitions[]`. */
export function columnOf(c) {
  return { name: c.name, type: c.type, format: c.format, description: c.description, priority: c.priority };
}

/** Columns whose text moves with the clock (compared by everything else). */
export function isTimeColumn(c) {
  return c.type === 'date' || c.name === 'Age';
}

/**
 * `namespace/name@rv cells...` of each row, sorted, with time columns left out: what
 * a table view must equal the server's Table by.
 */
export function rowKeys(rows, columns) {
  // A pod's Restarts says how long ago the last one was (`2 (5m3s ago)`): the clock's.
  const timeless = (c) => (typeof c === 'string' ? c.replace(/\((\d+[smhdy])+ ago\)/g, '(~ ago)') : c);
  return rows.map((r) => {
    const cells = r.cells.map((c, i) => (columns[i] && isTimeColumn(columns[i]) ? '~' : JSON.stringify(timeless(c))));
    return `${r.metadata.namespace ?? ''}/${r.metadata.name}@${r.metadata.resourceVersion} ${cells.join(' ')}`;
  }).sort();
}

/**
 * Waits until `read()` (in the page: `{ rv, rows, columns }` or null while not synced
 * and watching) equals the server's Table of `path` at that version: the columns
 * exactly, the rows and their cells but for time columns.
 */
export async function tableConverges(page, base, path, read, what, tries = 80) {
  let last = '';
  for (let i = 0; i < tries; i++) {
    const mine = await page.evaluate(read);
    if (mine) {
      try {
        const table = await serverTable(base, path, mine.rv);
        if (table) {
          const columns = table.columnDefinitions.map(columnOf);
          const sameColumns = JSON.stringify(columns) === JSON.stringify(mine.columns);
          const truth = rowKeys(table.rows.map((r) => ({ cells: r.cells, metadata: r.object.metadata })), columns);
          const got = rowKeys(mine.rows, columns);
          const differ = got.findIndex((k, j) => k !== truth[j]);
          last = `rv ${mine.rv}: ${got.length} rows held, ${truth.length} on the server, columns ${sameColumns ? 'equal' : `differ: ${JSON.stringify(mine.columns)} vs ${JSON.stringify(columns)}`}`
            + (differ >= 0 ? `; first difference: ${got[differ]} vs ${truth[differ]}` : '');
          if (sameColumns && truth.length === got.length && truth.every((k, j) => k === got[j])) {
            check(true, `${what} (${last})`);
            return true;
          }
        } else {
          last = 'the server answered no Table';
        }
      } catch (e) {
        last = String(e);
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  check(false, `${what} (${last})`);
  return false;
}
