// Issue 30: accessible. axe-core (npm, injected into the page as it is) finds no
// serious or critical violation in the app at a normal and a narrow width, in the
// light and the dark colour scheme, with the detail panel and the help open too; the
// table is a grid (header row 1, rows' aria-rowindex in the whole table, aria-sort,
// aria-rowcount and aria-colcount); the status's live region says the state, not the
// counters; and the keyboard alone reaches every feature (the pickers, the filter,
// sort, wide, the rows, the detail panel and its format buttons, the help), the focus
// visible all along and kept on the selected row while rows come and go.
import { launch, until, check, done, ARTIFACTS } from './lib.mjs';
import { axeCheck } from './axe.mjs';
import { focused } from './checks/layout.js';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const synced = (page) => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'
  && document.getElementById('status')?.dataset.phase === 'watching');

async function open(width, height, scheme) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${BASE}/ui/#r=v1/pods&wide=1`);
  await until('the first sync', () => synced(page), 60000);
  await until('rows', () => page.evaluate(() => document.querySelectorAll('.row:not(.gone)').length > 3), 20000);
  await sleep(300);
  return { context, page, errors };
}

try {
  // axe: two widths, two colour schemes; the detail panel and the help open too.
  for (const [width, height] of [[1280, 800], [360, 740]]) {
    for (const scheme of ['light', 'dark']) {
      const what = `${width} px, ${scheme}`;
      const { context, page, errors } = await open(width, height, scheme);
      await page.screenshot({ path: `${ARTIFACTS}/a11y-${width}-${scheme}.png` });
      await axeCheck(page, what);
      // The grid's semantics.
      const grid = await page.evaluate(() => {
        const g = document.querySelector('[role="grid"]');
        const rows = [...g.querySelectorAll('[role="row"]')];
        const sorted = [...g.querySelectorAll('[aria-sort]')];
        return {
          rowcount: Number(g.getAttribute('aria-rowcount')),
          colcount: Number(g.getAttribute('aria-colcount')),
          total: Number(document.getElementById('total-count').textContent),
          shown: Number(document.getElementById('shown-count').textContent),
          header: rows[0]?.getAttribute('aria-rowindex'),
          indexes: rows.slice(1).map((r) => Number(r.getAttribute('aria-rowindex'))),
          cellsOk: rows.slice(1).every((r) => [...r.children].every((c) => c.getAttribute('role') === 'gridcell')),
          sorted: sorted.map((h) => `${h.getAttribute('role')}:${h.getAttribute('aria-sort')}`),
          live: [...document.querySelectorAll('[aria-live]')].map((l) => l.id),
        };
      });
      check(grid.header === '1' && grid.indexes.every((i) => i >= 2 && i <= grid.rowcount),
        `${what}: the header is row 1, every row's aria-rowindex is in 2..${grid.rowcount}`);
      // The whole table (rows being deleted fade out in it for 1.5 s), not the DOM's rows.
      check(grid.rowcount - 1 >= grid.shown && grid.rowcount - 1 > grid.indexes.length,
        `${what}: aria-rowcount counts the whole table (${grid.rowcount} for ${grid.shown} rows, ${grid.indexes.length} in the DOM)`);
      check(grid.colcount >= 9 && grid.cellsOk, `${what}: aria-colcount ${grid.colcount} (every column, hidden ones too); rows hold gridcells`);
      check(grid.sorted.length === 1 && grid.sorted[0] === 'columnheader:ascending', `${what}: aria-sort on the sorted column's header only (${grid.sorted})`);
      check(grid.live.length === 1 && grid.live[0] === 'announce', `${what}: one live region, the status's announcements (${grid.live})`);
      // The detail panel (a sheet on a narrow window), then the help.
      await page.click('.row:not(.gone) .td[data-col="name"]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#detail-cells', { timeout: 5000 });
      await until('the object in the detail panel', () => page.evaluate(() => document.getElementById('detail-text') || document.getElementById('detail-error')), 15000).catch(() => {});
      await axeCheck(page, `${what}, the detail panel open`);
      await page.screenshot({ path: `${ARTIFACTS}/a11y-${width}-${scheme}-detail.png` });
      if (width < 720) {
        // A sheet over the table is modal: Tab and Shift+Tab cycle through its controls.
        const inside = () => page.evaluate(() => !!document.activeElement?.closest('#detail'));
        let stayed = 0;
        const visits = new Set();
        for (const key of [...Array(25).fill('Tab'), ...Array(25).fill('Shift+Tab')]) {
          await page.keyboard.press(key);
          if (await inside()) stayed += 1;
          visits.add(await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim().slice(0, 20)));
        }
        check(stayed === 50 && visits.size > 1, `${what}: in the detail sheet Tab and Shift+Tab stay in it (${stayed} of 50 presses, ${visits.size} controls visited)`);
      }
      await page.keyboard.press('Escape');
      await page.keyboard.press('?');
      await page.waitForSelector('#help', { timeout: 5000 });
      await axeCheck(page, `${what}, the help open`);
      await page.keyboard.press('Escape');
      check(errors.length === 0, `${what}: no page errors (${errors.join('; ')})`);
      await context.close();
    }
  }

  // The live region under churn: the status bar's counters change every second; the
  // announcements do not follow them.
  {
    const { context, page } = await open(1280, 800, 'light');
    await page.evaluate(() => {
      window.__said = [];
      const live = document.getElementById('announce');
      new MutationObserver(() => window.__said.push(live.textContent.trim())).observe(live, { childList: true, subtree: true, characterData: true });
      // The status bar (its version, its counters) and the counts change with the churn.
      window.__facts = 0;
      const bump = () => { window.__facts += 1; };
      for (const id of ['status', 'counts']) {
        new MutationObserver(bump).observe(document.getElementById(id), { childList: true, subtree: true, characterData: true, attributes: true });
      }
    });
    await sleep(8000);
    const { said, facts } = await page.evaluate(() => ({ said: window.__said.filter((s) => s), facts: window.__facts }));
    check(facts > 5 && said.length <= 2, `the status bar and the counts changed ${facts} times in 8 s, the live region said ${said.length} thing(s) (${said.join(' | ')})`);
    check(await page.evaluate(() => /Synced/.test(document.getElementById('announce').textContent)), 'the live region says the table is synced');
    await context.close();
  }

  // Row flashes do not speak by colour alone: an added row shows a bar at its left
  // edge, a changed one a line under it (a deleted one is struck through).
  {
    const { context, page } = await open(1280, 800, 'light');
    // The first flashing row whose cue is still drawn: its inset shadow's offsets.
    const cue = await until('a row flashing', () => page.evaluate(() => {
      for (const r of document.querySelectorAll('.row.added-a, .row.added-b, .row.mod-a, .row.mod-b')) {
        const m = /(-?[\d.]+)px (-?[\d.]+)px [\d.]+px [\d.]+px inset/.exec(getComputedStyle(r).boxShadow);
        if (m && (Number(m[1]) !== 0 || Number(m[2]) !== 0)) {
          return { added: /added/.test(r.className), x: Number(m[1]), y: Number(m[2]) };
        }
      }
      return null;
    }), 20000, 20);
    check(cue.added ? cue.x > 0 && cue.y === 0 : cue.x === 0 && cue.y < 0,
      `a flashing ${cue.added ? 'added row has a bar at its left edge' : 'changed row has a line under it'} (inset shadow ${cue.x}px ${cue.y}px)`);
    await context.close();
  }

  // The keyboard alone.
  {
    const { context, page, errors } = await open(1280, 800, 'dark');
    const seen = [];
    const tab = async (shift = false) => {
      await page.keyboard.press(shift ? 'Shift+Tab' : 'Tab');
      const f = await page.evaluate(focused);
      seen.push(f.id || f.col || f.classes.join('.'));
      return f;
    };
    // From the page's start: the pickers, the filter, wide, ?, the headers, the rows.
    const order = [];
    let f;
    for (let i = 0; i < 30; i++) {
      f = await tab();
      order.push(f);
      if (f.id === 'scroller') break;
    }
    const ids = order.map((o) => o.id || (o.col ? `th:${o.col}` : o.classes.join('.')));
    const at = (id) => ids.indexOf(id);
    check(at('resource') >= 0 && at('resource') < at('namespace') && at('namespace') < at('filter') && at('filter') < at('wide')
      && at('wide') < at('help-button') && at('help-button') < at('th:name') && at('th:name') < at('scroller'),
      `Tab walks the resource picker, the namespace, the filter, wide, ?, the headers, the table (${ids.join(' > ')})`);
    const invisible = order.filter((o) => !o.ok);
    check(invisible.length === 0, `the focus is visible on each (${invisible.map((o) => o.why).join('; ')})`);
    // Rows: arrows select and move the focus to the selected row.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await sleep(200);
    const sel = () => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('sel'));
    f = await page.evaluate(focused);
    let key = await sel();
    check(f.classes.includes('row') && f.key === key && f.ok, `arrows select a row and it has the visible focus (${f.key} for ${key}; ${f.why})`);
    check(await page.evaluate((k) => document.querySelector(`.row[data-key="${k}"]`)?.getAttribute('aria-selected') === 'true', key), 'the selected row says it is (aria-selected)');
    // Rows come and go (the sim churns): the focus stays on the selected row, or on
    // the table once the churn deleted that pod (the selection stays on it).
    const inTable = (now, s) => page.evaluate(([now, s]) => (now.classes.includes('row') && now.key === s)
      || (now.id === 'scroller' && !document.querySelector(`.row[data-key="${s}"]:not(.gone)`)), [now, s]);
    let kept = 0;
    let lastWhy = '';
    for (let i = 0; i < 12; i++) {
      await sleep(500);
      const now = await page.evaluate(focused);
      const s = await sel();
      if (await inTable(now, s)) kept += 1;
      else lastWhy = `: ${JSON.stringify(now)} for ${s}`;
    }
    check(kept === 12, `for 6 s of churn the focus stays on the selected row (or the table, the row deleted)${lastWhy}`);
    // A row still there, to go on with.
    await page.keyboard.press('Home');
    await sleep(200);
    // Enter: the details; Tab goes into the panel, the format buttons work by keys.
    await page.keyboard.press('Enter');
    await page.waitForSelector('#detail', { timeout: 5000 });
    await until('the object in the detail panel', () => page.evaluate(() => document.getElementById('detail-text') || document.getElementById('detail-error')), 15000).catch(() => {});
    let inside = false;
    for (let i = 0; i < 8 && !(f = await tab()).inDetail; i++);
    inside = f.inDetail;
    check(inside && f.ok, `Tab goes into the detail panel (${f.id}; ${f.why})`);
    for (let i = 0; i < 10 && f.id !== 'format-json'; i++) f = await tab();
    await page.keyboard.press('Enter');
    check(f.id === 'format-json' && await page.evaluate(() => document.getElementById('detail-text')?.dataset.format === 'json' || !!document.getElementById('detail-error')),
      `the JSON button is reached and pressed by keys (${f.id})`);
    await page.keyboard.press('Escape');
    await until('the detail closes', () => page.evaluate(() => !document.getElementById('detail')), 5000);
    await sleep(100);
    f = await page.evaluate(focused);
    key = await sel();
    check(await inTable(f, key) && f.ok, `Esc closes it and the focus is back on the selected row (${f.key || f.id} for ${key}, ${f.why})`);
    // Shift+Tab leaves the rows for the headers; Enter sorts by one.
    for (let i = 0; i < 20 && !(f.col === 'name' && f.tag === 'button'); i++) f = await tab(true);
    check(f.col === 'name' && f.ok, `Shift+Tab reaches the NAME header, visibly (${f.col}; ${f.why})`);
    await page.keyboard.press('Enter');
    await sleep(300);
    check(await page.evaluate(() => document.querySelector('.thc[aria-sort]')?.getAttribute('aria-sort') === 'descending'),
      'Enter on the NAME header sorts descending');
    check(await page.evaluate(() => document.getElementById('detail') === null), 'and does not open the detail panel');
    // Wide, by Space on the checkbox.
    await page.focus('#wide');
    await page.keyboard.press('Space');
    await until('wide off', () => page.evaluate(() => !location.hash.includes('wide=1')), 5000)
      .then(() => check(true, 'Space toggles wide'), () => check(false, 'Space toggles wide'));
    // `/` goes to the filter; typed words filter; Esc clears it.
    await page.focus('#scroller');
    await page.keyboard.press('/');
    f = await page.evaluate(focused);
    check(f.id === 'filter' && f.ok, `/ puts the visible focus in the filter (${f.id})`);
    await page.keyboard.type('pod-');
    await until('the filter', () => page.evaluate(() => [...document.querySelectorAll('.row:not(.gone)')].every((r) => r.textContent.includes('pod-'))), 5000).catch(() => {});
    await page.keyboard.press('Escape');
    check(await page.evaluate(() => document.getElementById('filter').value === ''), 'Esc clears the filter');
    // `?`: the help, focus in it, Esc back to the ? button.
    await page.focus('#scroller');
    await page.keyboard.press('?');
    await page.waitForSelector('#help', { timeout: 5000 });
    f = await page.evaluate(focused);
    check(f.inHelp && f.ok, `? opens the help with the visible focus in it (${f.id})`);
    let trapped = true;
    for (const k of ['Tab', 'Tab', 'Shift+Tab']) {
      await page.keyboard.press(k);
      trapped &&= (await page.evaluate(focused)).inHelp;
    }
    check(trapped, 'the help is modal: Tab and Shift+Tab stay in it');
    await page.keyboard.press('Escape');
    await sleep(100);
    f = await page.evaluate(focused);
    key = await sel();
    check(f.key === key || f.id === 'scroller', `Esc closes the help and the focus is back in the table (${f.key || f.id})`);
    // Opened by its button, the help gives the focus back to it.
    await page.focus('#help-button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#help', { timeout: 5000 });
    await page.keyboard.press('Escape');
    await sleep(100);
    f = await page.evaluate(focused);
    check(f.id === 'help-button' && f.ok, `the ? button opens it by keys, Esc gives the focus back to it (${f.id})`);
    console.log(`  focus walk: ${seen.join(' > ')}`);
    check(errors.length === 0, `keyboard walk: no page errors (${errors.join('; ')})`);
    await context.close();
  }
} finally {
  await browser.close();
}
done('a11y');
