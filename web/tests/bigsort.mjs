// A large table's header clicks (issue 16): from 50,000 rows a click on a new column,
// or on the sorted one, shows the first screen of the new order at once and puts the
// rest in order in idle slices, the table `aria-busy` meanwhile; then every row is in
// order, down to the middle of the table, and the rows that changed meanwhile are
// there. Through kubectl proxy, 60,000 pods churning.
import { launch, openPage, until, check, done, columnIndex } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A restarts cell's leading count ("3 (5m ago)" -> 3). */
const count = (text) => parseInt(text, 10);

/**
 * Whether rows ([restarts cell, namespace/name]) are in the sort's order: by the count
 * (descending if `desc`); equal counts without a last restart ("0") by namespace and
 * name (bytes), either way. (Equal counts with one, "1 (5s ago)", go by its time,
 * which the text shows only to the second.)
 */
function ordered(rows, desc) {
  return rows.length > 0 && rows.every(([cell, key], i) => {
    if (i === 0) return true;
    const [prev, pk] = rows[i - 1];
    const [pc, c] = [count(prev), count(cell)];
    if (pc !== c) return desc ? pc > c : pc < c;
    if (prev.includes('(') || cell.includes('(')) return true;
    return pk.replace('/', '\0') < key.replace('/', '\0');
  });
}

/** The shown rows that are not gone, top to bottom: [cell of column `at`, key]. */
function shownRows(at) {
  return [...document.querySelectorAll('.row:not(.gone)')]
    .sort((a, b) => a.ariaRowIndex - b.ariaRowIndex).map((r) => [r.children[at].textContent, r.dataset.key]);
}

/**
 * Clicks the header of column `col`; resolves when the table is no longer busy, with
 * whether it was busy after the click and the first rows' cells of `title` as first
 * painted.
 */
async function click(page, col, title) {
  const at = await columnIndex(page, title);
  return page.evaluate(([col, at]) => new Promise((done) => {
    const table = document.querySelector('.table');
    let busy = false;
    let first = null;
    // As `shownRows` (no eval under the app's CSP).
    const cells = () => [...document.querySelectorAll('.row:not(.gone)')]
      .sort((a, b) => a.ariaRowIndex - b.ariaRowIndex).map((r) => [r.children[at].textContent, r.dataset.key]);
    // The rows as shown before the click; the first screen is the first frame's rows
    // that differ (the rows may follow the click's render by a task: Yew defers
    // child components' updates when a run of its scheduler took over 16 ms).
    const before = JSON.stringify(cells().map(([, key]) => key));
    const look = () => {
      if (!busy || first !== null) return;
      const now = cells();
      if (JSON.stringify(now.map(([, key]) => key)) !== before) first = now;
      else requestAnimationFrame(look);
    };
    const o = new MutationObserver(() => {
      if (table.getAttribute('aria-busy') === 'true') {
        if (!busy) requestAnimationFrame(look);
        busy = true;
      } else if (busy) {
        o.disconnect();
        setTimeout(() => done({ busy, first }), 100);
      }
    });
    o.observe(table, { attributes: true, attributeFilter: ['aria-busy'] });
    document.querySelector(`.thead [data-col="${col}"]`).click();
    // A click sorted at once (the keys not prepared yet) is never busy.
    setTimeout(() => { if (!busy) { o.disconnect(); done({ busy, first: cells() }); } }, 5000);
  }), [col, at]);
}

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 900 } });
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('Synced', () => page.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 120000, 250);
  const rows = await page.evaluate(() => Number(document.querySelector('.table').getAttribute('aria-rowcount')));
  check(rows >= 55000, `synced a large table (${rows} rows)`);

  // The columns' sort keys are prepared in idle slices after Synced; a click before
  // they are sorts at once. Clicked until one is built in slices (a few seconds).
  // A column sorted by lately is kept (two of them): three others clicked in between
  // make RESTARTS new again.
  let r = null;
  for (let i = 0; i < 4; i++) {
    await sleep(2000);
    r = await click(page, 'restarts', 'restarts');
    if (r.busy) break;
    for (const col of ['age', 'status', 'ready']) await click(page, col, col);
  }
  check(r.busy, 'a click on a new column at a large table puts its rows in order after the first screen (aria-busy meanwhile)');
  const at = await columnIndex(page, 'restarts');
  check(r.first && r.first.length >= 20 && ordered(r.first, false),
    `the first screen was in the new order at once (${r.first?.slice(0, 4).join('; ')}...)`);
  const top = await page.evaluate(shownRows, at);
  check(top.length >= 20 && ordered(top, false), 'once built, the top rows are in order');

  // Down the table: rows there are shown (not blank) and in order.
  const middle = await page.evaluate(async () => {
    const s = document.getElementById('scroller');
    s.scrollTop = Math.round(s.scrollHeight / 2 / 28) * 28;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return s.scrollTop;
  });
  const mid = await page.evaluate(shownRows, at);
  check(middle > 100000 && mid.length >= 20 && ordered(mid, false),
    `in the middle of the table (${middle} px) the rows are shown and in order (${mid.length} rows)`);
  await page.evaluate(() => { document.getElementById('scroller').scrollTop = 0; });
  await sleep(300);

  // The other way: a flip, in slices as well.
  const f = await click(page, 'restarts', 'restarts');
  check(f.busy, 'a flip at a large table puts its rows in order after the first screen');
  check(f.first && f.first.length >= 20 && ordered(f.first, true),
    `the flip's first screen was in order at once (${f.first?.slice(0, 4).join('; ')}...)`);
  const down = await page.evaluate(shownRows, at);
  check(ordered(down, true), `once built, the top rows are in order, descending (${down.slice(0, 4).join('; ')}...)`);
  check((await page.evaluate(() => location.hash)).includes('sort=-restarts'), 'the sort is in the URL');

  // The changes that waited for the sort were applied: the count still follows the
  // server's (the sim churns), and the table is no longer busy.
  const after = await page.evaluate(() => Number(document.querySelector('.table').getAttribute('aria-rowcount')));
  check(Math.abs(after - rows) < 5000, `the row count goes on following the churn (${rows} -> ${after})`);
  check(await page.evaluate(() => !document.querySelector('.table[aria-busy="true"]')), 'the table is no longer busy');
  check(problems.errors.length === 0 && problems.console.length === 0, `no page errors (${[...problems.errors, ...problems.console].join('; ')})`);
} finally {
  await browser.close();
}
done('bigsort');
