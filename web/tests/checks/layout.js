// In-page layout checks of issue 30 (any width from 360 px up), shared by the
// browser tests of every engine. Each export is a plain function that uses nothing
// outside its own body and takes one JSON argument, so that its source runs as it is:
//
//   Playwright:  await page.evaluate(visible, '#filter')
//   WebDriver:   driver.executeScript(`return (${visible.toString()})(arguments[0])`, '#filter')
//
// Every function answers a JSON object `{ ok, why, ... }` (`why` says what is wrong
// when `ok` is false); none throws for a page that merely looks wrong.
//
//   visible(selector)      the first element `selector` finds is inside the viewport,
//                          not clipped by an ancestor, not covered by another element
//                          (its centre hits it), and has a size.
//   offscreen()            nothing is off screen without a scrollbar that reaches it:
//                          the document is no wider than the window, and every element
//                          that reaches past the window's sides has an ancestor inside
//                          the window that scrolls (or clips) it.
//   aligned()              the table's header cells sit over their column's cells (left
//                          and right edges within 1 px) in the first shown row.
//   columns()              the table's columns: every column's id (`aria-colcount` of
//                          the grid), the shown ones (header `data-col`), how many are
//                          hidden (`#hidden-columns`' `data-hidden`, 0 without it).
//   detailCells()          the detail panel's cells (`#detail-cells`): column id -> text.
//   focused()              (below) the focused element and whether its focus is visible.

export function visible(selector) {
  const el = document.querySelector(selector);
  if (!el) return { ok: false, why: `no element ${selector}` };
  const r = el.getBoundingClientRect();
  const rect = { left: Math.round(r.left), top: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) };
  if (r.width < 1 || r.height < 1) return { ok: false, why: `${selector} has no size`, rect };
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
    return { ok: false, why: `${selector} is not inside the ${vw}x${vh} viewport`, rect };
  }
  // Clipped: an ancestor that clips (overflow other than visible, or paint
  // containment) and does not hold the whole element.
  for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const cs = getComputedStyle(a);
    const clips = cs.overflowX !== 'visible' || cs.overflowY !== 'visible' || /paint|strict|content/.test(cs.contain);
    if (!clips) continue;
    const ar = a.getBoundingClientRect();
    if (r.left < ar.left - 0.5 || r.right > ar.right + 0.5 || r.top < ar.top - 0.5 || r.bottom > ar.bottom + 0.5) {
      const name = a.id ? `#${a.id}` : `.${[...a.classList].join('.')}`;
      return { ok: false, why: `${selector} is clipped by ${a.tagName.toLowerCase()}${name}`, rect };
    }
  }
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (!hit || !(hit === el || el.contains(hit) || hit.contains(el) && hit.tagName === 'LABEL')) {
    const name = hit ? `${hit.tagName.toLowerCase()}${hit.id ? `#${hit.id}` : ''}.${[...hit.classList].join('.')}` : 'nothing';
    return { ok: false, why: `${selector} is covered by ${name} at its centre`, rect };
  }
  return { ok: true, why: '', rect };
}

export function offscreen() {
  const vw = document.documentElement.clientWidth;
  const doc = document.documentElement.scrollWidth;
  const offenders = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    // Nothing to see: empty, or visually hidden for screen readers (1 px, clipped).
    if (r.width <= 1 && r.height <= 1) continue;
    if (r.left >= -0.5 && r.right <= vw + 0.5) continue;
    let held = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const clips = cs.overflowX !== 'visible' || /paint|strict|content/.test(cs.contain);
      if (!clips) continue;
      const ar = a.getBoundingClientRect();
      // A clip inside the window: what is past it is cut (an ellipsis) or scrolled to.
      if (ar.left >= -0.5 && ar.right <= vw + 0.5) {
        held = true;
        break;
      }
    }
    if (!held && getComputedStyle(el).visibility !== 'hidden') {
      const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;
      offenders.push(`${name} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
    }
  }
  const ok = doc <= window.innerWidth && offenders.length === 0;
  const why = ok ? '' : `document ${doc} px wide in a ${window.innerWidth} px window; past the window's sides: ${offenders.slice(0, 6).join(', ')}`;
  return { ok, why, documentWidth: doc, windowWidth: window.innerWidth, offenders };
}

export function aligned() {
  const row = [...document.querySelectorAll('.row:not(.gone)')]
    .sort((a, b) => a.getAttribute('aria-rowindex') - b.getAttribute('aria-rowindex'))[0];
  if (!row) return { ok: false, why: 'no row shown' };
  const heads = [...document.querySelectorAll('.thead [role="columnheader"]')];
  const cells = [...row.querySelectorAll('[role="gridcell"]')];
  if (heads.length !== cells.length) return { ok: false, why: `${heads.length} header cells, ${cells.length} cells in a row` };
  let worst = 0;
  const off = [];
  heads.forEach((h, i) => {
    const a = h.getBoundingClientRect();
    const b = cells[i].getBoundingClientRect();
    const d = Math.max(Math.abs(a.left - b.left), Math.abs(a.right - b.right));
    worst = Math.max(worst, d);
    if (d > 1) off.push(`${h.querySelector('[data-col]')?.dataset.col ?? i}: header [${a.left.toFixed(1)}, ${a.right.toFixed(1)}], cells [${b.left.toFixed(1)}, ${b.right.toFixed(1)}]`);
  });
  return { ok: off.length === 0, why: off.join('; '), worst };
}

export function columns() {
  const grid = document.querySelector('[role="grid"]');
  const shown = [...document.querySelectorAll('.thead [data-col]')].map((h) => h.dataset.col);
  const more = document.getElementById('hidden-columns');
  const hidden = more ? Number(more.dataset.hidden) : 0;
  const count = grid ? Number(grid.getAttribute('aria-colcount')) : 0;
  const ok = !!grid && count === shown.length + hidden;
  return { ok, why: ok ? '' : `aria-colcount ${count}, ${shown.length} shown, ${hidden} said hidden`, count, shown, hidden };
}

export function detailCells() {
  const dl = document.getElementById('detail-cells');
  if (!dl) return { ok: false, why: 'no #detail-cells in the detail panel', cells: {} };
  const cells = {};
  for (const dd of dl.querySelectorAll('dd[data-col]')) cells[dd.dataset.col] = dd.textContent;
  return { ok: true, why: '', cells };
}

// focused()               the focused element: its id, classes, `data-key` / `data-col`,
//                         and whether its focus is visible (an outline of at least
//                         1 px, or a box-shadow ring).
export function focused() {
  const el = document.activeElement;
  if (!el || el === document.body) return { ok: false, why: 'nothing has the focus', id: null };
  const cs = getComputedStyle(el);
  const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1;
  const ring = cs.boxShadow && cs.boxShadow !== 'none';
  const ok = outline || !!ring;
  return {
    ok,
    why: ok ? '' : `${el.tagName.toLowerCase()}#${el.id} has no visible focus (outline ${cs.outlineStyle} ${cs.outlineWidth})`,
    id: el.id || null,
    tag: el.tagName.toLowerCase(),
    classes: [...el.classList],
    key: el.dataset?.key ?? null,
    col: el.dataset?.col ?? null,
    inDetail: !!el.closest('#detail'),
    inHelp: !!el.closest('#help'),
  };
}
