// Issue 30: any width from 360 px up. At 360, 768, 1,024, 1,440 and 2,560 px the
// app (pods of every namespace, every column the server prints: `-o wide`) shows
// the filter, the counts, the `?` button and the Name and Status columns inside the
// window, neither clipped nor covered, and they work (the filter filters, `?` opens
// the help); nothing is off screen without a scrollbar that reaches it, with the
// help and the detail panel open too; the header's cells sit over their columns'
// cells; the columns with no room are said in the header (`+N`) and the detail
// panel shows every cell of the row, theirs too. The in-page checks are plain
// functions (checks/layout.js) that the Firefox and WebKit runs use as they are.
import { launch, openPage, until, check, done, ARTIFACTS } from './lib.mjs';
import { visible, offscreen, aligned, columns, detailCells } from './checks/layout.js';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const WIDTHS = [360, 768, 1024, 1440, 2560];
const browser = await launch();

const synced = (page) => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'
  && document.getElementById('status')?.dataset.phase === 'watching');

/** `fn`'s answer at `arg`, checked: `what` and, when it fails, why. */
async function expect(page, fn, arg, what) {
  const got = await page.evaluate(fn, arg);
  check(got.ok, `${what}${got.ok ? '' : `: ${got.why}`}`);
  return got;
}

/** A first shown row's cell of `col`, as a selector (rows are pooled: by key). */
async function firstRowCell(page, col) {
  const key = await page.evaluate(() => [...document.querySelectorAll('.row:not(.gone)')]
    .sort((a, b) => a.getAttribute('aria-rowindex') - b.getAttribute('aria-rowindex'))[0]?.dataset.key);
  return `.row[data-key="${key}"] .td[data-col="${col}"]`;
}

try {
  for (const width of WIDTHS) {
    const height = width >= 2000 ? 1300 : 800;
    console.log(`-- ${width} x ${height}`);
    const { context, page, problems } = await openPage(browser, { viewport: { width, height } });
    // A ResizeObserver loop (the app's measuring changed what it observes within the
    // observer's callback) is reported to the window only, not as a page error.
    await page.addInitScript(() => {
      window.__roLoops = 0;
      window.addEventListener('error', (e) => { if (/ResizeObserver loop/.test(e.message)) window.__roLoops += 1; });
    });
    await page.goto(`${BASE}/ui/#r=v1/pods&wide=1`);
    await until(`${width} px: the first sync`, () => synced(page), 60000);
    // Laid out and measured: the header's cells are the columns that fit.
    await until(`${width} px: rows`, () => page.evaluate(() => document.querySelectorAll('.row:not(.gone)').length > 3), 20000);
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${ARTIFACTS}/widths-${width}.png` });
    const loops = await page.evaluate(() => window.__roLoops);
    check(loops === 0, `${width} px: the columns' measuring settles without a ResizeObserver loop (${loops})`);

    for (const sel of ['#filter', '#counts', '#help-button', '.th[data-col="name"]', '.th[data-col="status"]']) {
      await expect(page, visible, sel, `${width} px: ${sel} is visible`);
    }
    // The rows' cells: churn may move the row between the look-up and the check.
    for (const col of ['name', 'status']) {
      let got = null;
      for (let i = 0; i < 5 && !got?.ok; i++) got = await page.evaluate(visible, await firstRowCell(page, col));
      check(got.ok, `${width} px: a row's ${col} cell is visible${got.ok ? '' : `: ${got.why}`}`);
    }
    await expect(page, offscreen, null, `${width} px: nothing is off screen`);
    await expect(page, aligned, null, `${width} px: the header's cells sit over their columns' cells`);
    const cols = await expect(page, columns, null, `${width} px: the columns shown and hidden add up`);
    console.log(`     columns shown: ${cols.shown.join(', ')}; hidden: ${cols.hidden}`);
    if (width === 360) check(cols.hidden > 0, `${width} px: some columns are hidden (${cols.hidden})`);
    if (width === 2560) check(cols.hidden === 0, `${width} px: every column is shown (${cols.shown.length})`);
    if (width <= 1024) check(cols.hidden > 0 || cols.shown.length === cols.count, `${width} px: hidden columns are said in the header`);

    // The filter works: typed text narrows the rows to those that contain it.
    const word = await page.evaluate(() => document.querySelector('.row:not(.gone) .td[data-col="name"]').textContent.split('-').slice(0, 2).join('-'));
    await page.click('#filter');
    await page.keyboard.type(word);
    await until(`${width} px: the filter applies`, () => page.evaluate((w) => {
      const rows = [...document.querySelectorAll('.row:not(.gone)')];
      return rows.length > 0 && rows.every((r) => r.textContent.includes(w));
    }, word), 10000).then(() => check(true, `${width} px: typing "${word}" in the filter narrows the rows`),
      (e) => check(false, `${width} px: the filter: ${e.message}`));
    await page.keyboard.press('Escape');

    // `?` opens the help, inside the window; Esc closes it, the focus back on `?`.
    await page.click('#help-button');
    await page.waitForSelector('#help', { timeout: 5000 });
    await expect(page, visible, '#close-help', `${width} px: the help's close button is visible`);
    await expect(page, offscreen, null, `${width} px: with the help open, nothing is off screen`);
    check(await page.evaluate(() => document.activeElement?.id === 'close-help'), `${width} px: the focus is in the help`);
    await page.keyboard.press('Escape');
    await until(`${width} px: the help closes`, () => page.evaluate(() => !document.getElementById('help')), 5000);
    check(await page.evaluate(() => document.activeElement?.id === 'help-button'), `${width} px: the focus is back on ?`);

    // The detail panel shows every cell of the row, the hidden columns' too.
    if (cols.hidden > 0) {
      await page.click('#hidden-columns');
    } else {
      await page.click(await firstRowCell(page, 'name'), { clickCount: 2 });
    }
    await page.waitForSelector('#detail-cells', { timeout: 5000 });
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${ARTIFACTS}/widths-${width}-detail.png` });
    const shownCells = await detailCells_of(page);
    const ids = await page.evaluate(() => [...document.querySelectorAll('#detail-cells dt[data-col]')].map((d) => d.dataset.col));
    check(ids.length === cols.count, `${width} px: the detail panel shows every column (${ids.length} of ${cols.count}: ${ids.join(', ')})`);
    const sel = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('sel'));
    check(sel && shownCells.cells.name === sel.split('/')[1], `${width} px: the detail's cells are the selected row's (${shownCells.cells.name} for ${sel})`);
    await expect(page, visible, '#close-detail', `${width} px: the detail panel's close button is visible`);
    await expect(page, offscreen, null, `${width} px: with the detail panel open, nothing is off screen`);
    if (width < 720) {
      const sheet = await page.evaluate(() => {
        const r = document.getElementById('detail').getBoundingClientRect();
        return { left: r.left, width: r.width };
      });
      check(sheet.left <= 0.5 && Math.abs(sheet.width - width) <= 1, `${width} px: the detail panel is a full-width sheet (${JSON.stringify(sheet)})`);
      check(await page.evaluate(() => document.activeElement?.closest('#detail') !== null), `${width} px: the sheet has the focus`);
    }
    await page.keyboard.press('Escape');
    await until(`${width} px: the detail closes`, () => page.evaluate(() => !document.getElementById('detail')), 5000);
    // A pod the churn deletes while its details load answers 404: the panel says so.
    const consoleErrors = problems.console.filter((m) => !/status of 404/.test(m));
    check(problems.errors.length === 0 && consoleErrors.length === 0, `${width} px: no page errors (${[...problems.errors, ...consoleErrors].join('; ')})`);
    await context.close();
  }
} finally {
  await browser.close();
}
done('widths');

async function detailCells_of(page) {
  return page.evaluate(detailCells);
}
