// A busy table: thousands of pods churning hundreds of times a second, through kubectl
// proxy. The app renders every animation frame that has news (not a few times a
// second), the rows the user looks at stay put while rows come and go above them, a
// user's scroll is never fought, and the event log holds still under the pointer.
import { launch, openPage, until, check, done, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The row at the top edge of the table's viewport: its key and where it is on screen. */
function topRow() {
  const s = document.getElementById('scroller');
  const edge = s.getBoundingClientRect().top + 1;
  const row = [...s.querySelectorAll('.row')].find((r) => {
    const b = r.getBoundingClientRect();
    return b.top <= edge && b.bottom > edge;
  });
  return row && { key: row.dataset.key, y: row.getBoundingClientRect().top, scrollTop: s.scrollTop, gone: row.classList.contains('gone') };
}

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 900 } });
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('Synced', () => page.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 60000);
  const total = await page.evaluate(() => Number(document.getElementById('total-count').textContent));
  check(total > 1000, `synced a busy table (${total} pods)`);

  // Renders per second, from the app's own User Timing of each frame.
  const renders = await page.evaluate(() => new Promise((done) => {
    let n = 0;
    const o = new PerformanceObserver((l) => { n += l.getEntries().filter((e) => e.name === 'kubelive:frame').length; });
    o.observe({ type: 'measure' });
    setTimeout(() => { o.disconnect(); done(n / 2); }, 2000);
  }));
  check(renders >= 15, `under churn the table renders at animation frames, not in bursts (${renders} renders/s)`);

  // Scroll anchoring: scrolled to the middle, the top row stays where it is while
  // rows are added and deleted above it; the scroll position is what moves.
  await page.evaluate(() => {
    const s = document.getElementById('scroller');
    s.scrollTop = Math.round(s.scrollHeight / 2 / 28) * 28;
  });
  await sleep(800);
  let held = 0;
  let moved = 0;
  let tries = 0;
  for (; tries < 12 && (held < 3 || moved < 1); tries++) {
    const before = await page.evaluate(topRow);
    await sleep(700);
    const after = await page.evaluate(topRow);
    if (!before || !after || before.gone || after.gone) continue;
    if (before.scrollTop !== after.scrollTop) moved += 1;
    if (before.key === after.key && Math.abs(before.y - after.y) < 2) held += 1;
    else console.log(`  (top row moved: ${JSON.stringify(before)} -> ${JSON.stringify(after)})`);
  }
  check(held >= 3, `the top row stays in place while rows come and go above it (${held} of ${tries} looks)`);
  check(moved >= 1, `the scroll position follows the rows above instead (${moved} of ${tries} looks)`);
  await page.screenshot({ path: `${ARTIFACTS}/live-middle.png` });

  // A user's scroll is not fought: a wheel scroll lands where the user sent it.
  // Within a few rows: until the wheel's first scroll event, rows coming and going
  // above still move the scroll position (anchoring), as they should, so a burst of
  // them in that moment moves it more; a wheel whose scroll the app fought would miss
  // every time, so up to three wheels, one of which must land.
  await page.mouse.move(700, 450);
  const wheels = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const start = await page.evaluate(() => document.getElementById('scroller').scrollTop);
    await page.mouse.wheel(0, 2800);
    // Read once the scroll comes to rest (the app keeps off for 400 ms after it).
    let end = start;
    for (let i = 0, last = NaN; i < 40; i++) {
      await sleep(40);
      end = await page.evaluate(() => document.getElementById('scroller').scrollTop);
      if (end === last && end !== start) break;
      last = end;
    }
    wheels.push(end - start);
    if (Math.abs(end - start - 2800) <= 28 * 5) break;
    await sleep(600);
  }
  check(Math.abs(wheels[wheels.length - 1] - 2800) <= 28 * 5, `a wheel scroll of 2800 px moves the table by it (${wheels.join(', ')} px)`);

  // While the user scrolls, rows that rows coming and going above push down or pull
  // up keep their elements: the window moves, not what each element shows (else every
  // row on screen would be rendered anew at each batch of news).
  const follow = await page.evaluate(() => new Promise((done) => {
    const s = document.getElementById('scroller');
    const snap = () => new Map([...s.querySelectorAll('.row')].map((r, slot) => [r.dataset.key, { slot, index: Number(r.ariaRowIndex) }]));
    let shifted = 0;
    let hopped = 0;
    let round = 0;
    const next = () => {
      if (round++ === 16) return done({ shifted, hopped });
      const before = snap();
      let nudges = 0;
      // The user scrolling: a pixel every 50 ms, 300 ms (the app takes news every 100 ms).
      const nudge = setInterval(() => {
        s.scrollTop += 1;
        if (++nudges < 6) return;
        clearInterval(nudge);
        requestAnimationFrame(() => {
          for (const [key, a] of snap()) {
            const b = before.get(key);
            if (!b || a.index === b.index) continue;
            shifted += 1;
            if (a.slot !== b.slot) hopped += 1;
          }
          next();
        });
      }, 50);
    };
    next();
  }));
  // (Rows that come or go within the screen move the rows below them alone: those
  // change element. Without this, every moved row did: 556 of 556.)
  check(follow.shifted > 0 && follow.hopped <= follow.shifted / 3,
    `while the user scrolls, rows pushed by rows above keep their elements (${follow.hopped} of ${follow.shifted} moved rows changed element)`);

  // The row elements are a fixed pool reused as the table scrolls: scrolling far
  // creates no row element, and every element shows its row whole and in its place
  // (its cells are its object's, its place on screen is its index's); the selection
  // and the detail panel follow the object, not the element that showed it.
  const rowsNow = () => page.evaluate(() => {
    const s = document.getElementById('scroller');
    const top = s.getBoundingClientRect().top;
    window.__pool = window.__pool || new WeakSet();
    return [...s.querySelectorAll('.row')].map((r) => {
      const known = window.__pool.has(r);
      window.__pool.add(r);
      return {
        key: r.dataset.key,
        // The header is the grid's row 1: a row's index is its aria-rowindex less 2.
        index: Number(r.ariaRowIndex) - 2,
        y: r.getBoundingClientRect().top - top + s.scrollTop,
        name: r.querySelector('.td.name')?.textContent,
        known,
        selected: r.classList.contains('selected'),
      };
    });
  });
  const pool = await rowsNow();
  const poolOk = (rows) => rows.every((r) => r.known && r.name === r.key.split('/')[1] && Math.abs(r.y - r.index * 28) < 1);
  // Clicks are dispatched in the page, on an element read in the same task: under
  // churn a pointer's click may land on a row that moved under it meanwhile.
  const clickRow = (kind) => page.evaluate((kind) => {
    const rows = [...document.querySelectorAll('.row:not(.gone)')].sort((a, b) => a.ariaRowIndex - b.ariaRowIndex);
    const r = rows[Math.floor(rows.length / 2)];
    r.dispatchEvent(new MouseEvent(kind, { bubbles: true }));
    return { key: r.dataset.key, name: r.querySelector('.td.name').textContent };
  }, kind);
  const clicked = await clickRow('click');
  await sleep(300);
  const sel = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('sel'));
  check(sel === clicked.key, `a click selects the row the element shows (${sel})`);
  let reused = true;
  let cellsOk = true;
  let awaySelected = 0;
  for (const dy of [1400, 2800, 9800, -14000]) {
    await page.evaluate((dy) => { document.getElementById('scroller').scrollTop += dy; }, dy);
    await sleep(300);
    const rows = await rowsNow();
    reused &&= rows.length === pool.length && rows.every((r) => r.known);
    cellsOk &&= poolOk(rows);
    if (!cellsOk) console.log(`  (rows: ${JSON.stringify(rows.filter((r) => !poolOk([r])).slice(0, 3))})`);
    awaySelected += rows.filter((r) => r.selected && r.key !== clicked.key).length;
  }
  check(reused, `scrolling reuses the ${pool.length} row elements: none is created`);
  check(cellsOk, 'after scrolling, each row element shows its own row\'s cells at its own place');
  check(awaySelected === 0, `the selection stays with its object as elements are reused (${awaySelected} other rows shown selected)`);
  const back = await page.evaluate((key) => {
    const r = document.querySelector(`.row[data-key="${key}"]`);
    return r && { selected: r.classList.contains('selected'), count: document.querySelectorAll('.row.selected').length };
  }, clicked.key);
  check(!back || (back.selected && back.count === 1), `scrolled back, the selected row is the one clicked (${JSON.stringify(back)})`);
  const opened = await clickRow('dblclick');
  await until('the detail panel', () => page.evaluate(() => document.getElementById('detail-name') !== null), 10000);
  const detailName = await page.evaluate(() => document.getElementById('detail-name').textContent);
  check(detailName === opened.name, `a double click on a reused row element opens its own object (${detailName})`);
  await page.keyboard.press('Escape');

  // Row states are the object's: a changed row flashes and a deleted one fades, each
  // with the one animation of its state and no other row animates; a row that merely
  // scrolled into a reused element while its flash runs shows it at its phase, not
  // restarted (so some are well into theirs right after a jump).
  const looks = () => page.evaluate(() => [...document.querySelectorAll('.row')].map((r) => ({
    key: r.dataset.key,
    state: /\b(added|mod)-[ab]\b/.test(r.className) ? 'flash' : r.classList.contains('gone') ? 'gone' : 'normal',
    // How far into its keyframes: a negative delay starts an animation that far in.
    anims: r.getAnimations().map((a) => ({ name: a.animationName, t: a.currentTime - a.effect.getTiming().delay })),
  })));
  let statesOk = true;
  let flashesSeen = 0;
  let fadesSeen = 0;
  let latest = 0;
  for (let i = 0; i < 8; i++) {
    await page.evaluate(() => {
      const s = document.getElementById('scroller');
      s.scrollTop = (s.scrollTop + 5600) % (s.scrollHeight - 2 * s.clientHeight);
    });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    for (const r of await looks()) {
      const want = { flash: [/^flash-(add|mod)-[ab]$/, 1300], gone: [/^fade-out-[ab]$/, 1600] }[r.state];
      // (A state's class may outlive its animation by a frame or a sweep: none is fine.)
      const ok = want
        ? r.anims.length <= 1 && r.anims.every((a) => want[0].test(a.name) && a.t >= 0 && a.t <= want[1])
        : r.anims.length === 0;
      if (!ok) console.log(`  (row ${r.key}: ${r.state}, ${JSON.stringify(r.anims)})`);
      statesOk &&= ok;
      if (r.state === 'flash') {
        flashesSeen += 1;
        latest = Math.max(latest, r.anims[0]?.t ?? 0);
      }
      if (r.state === 'gone') fadesSeen += 1;
    }
  }
  check(statesOk, `each flashing or fading row runs its state's one animation, and no other row animates (${flashesSeen} flashes, ${fadesSeen} fades seen)`);
  check(flashesSeen > 0 && latest > 300, `flashes in rows that scrolled into reused elements run at their phase, not restarted (the furthest ${Math.round(latest)} ms in, of ${flashesSeen})`);

  // The event log: a few lines, refreshed a few times a second under churn; under
  // the pointer it holds still, says how much is waiting and shows all it kept.
  const lines = () => page.evaluate(() => [...document.querySelectorAll('#log .log-entry')].map((e) => e.textContent));
  const running = await lines();
  await sleep(600);
  const later = await lines();
  check(running.length > 0 && running.length <= 20, `the running log shows the newest lines only (${running.length})`);
  check(later.join('\n') !== running.join('\n'), 'the running log moves on under churn');
  await page.hover('#log');
  await until('the log to hold', () => page.evaluate(() => document.getElementById('log').dataset.held === 'true'), 5000);
  const heldLines = await lines();
  await sleep(1200);
  const stillHeld = await lines();
  check(heldLines.length > running.length, `held, the log shows what it kept (${heldLines.length} lines)`);
  check(stillHeld.join('\n') === heldLines.join('\n'), 'held, the log does not move');
  const badge = await page.evaluate(() => document.getElementById('log-held')?.textContent || '');
  check(/paused · \d+ new/.test(badge), `held, the log says how much is waiting ("${badge}")`);
  await page.screenshot({ path: `${ARTIFACTS}/live-log-held.png` });
  await page.mouse.move(700, 300);
  await until('the log to run again', () => page.evaluate(() => document.getElementById('log').dataset.held === 'false'), 5000);
  await sleep(600);
  const resumed = await lines();
  check(resumed.length <= 20 && resumed[0] !== heldLines[0], 'let go, the log runs again from the newest');

  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  check(problems.console.length === 0, `no console errors (${problems.console.slice(0, 3).join('; ')})`);
} finally {
  await browser.close();
}
done('live');
