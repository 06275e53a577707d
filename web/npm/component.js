// <kubelive-table>: a live, sortable, virtualised table of one Kubernetes collection,
// printed by the server as `kubectl get` prints it. Importing this module defines the
// element; every element on the page shares the one wasm instance `init()` loads.
//
// Attributes (a change restarts the watch, except `wide` and `filter`): `resource` (a
// collection path such as `/api/v1/pods`, or a common plural such as `pods`),
// `namespace`, `label-selector`, `field-selector`, `base-url`, `wide` (every column, as
// `-o wide`), `filter` (free text: rows with every word in one of their shown cells),
// `shared` (the engine runs in kubelive's worker, one per view for every tab of the
// origin: the Watcher's `shared` option).
// DOM events (bubbling, composed): `kubelive-change`, `kubelive-status`,
// `kubelive-synced`, `kubelive-error`, `kubelive-select` (a row clicked; unless the
// page cancels it, the element shows the object below the table, fetched then, its
// Secret values masked). Cells are text (textContent), never markup.
//
// The rows are a view of the watcher (`watcher.view()`): kubelive's table model, the
// app's, sorts, filters and prints them (ages counted on, changed rows marked) in
// wasm; this element asks for the window it shows and draws it.

import init, { Watcher, humanDuration } from './index.js';
// Named here too (the same module index.js imports): the browser fetches it beside
// index.js, not after it (one round trip less before the wasm loads).
import './kubelive_watcher.js';

export { humanDuration };

/** Plurals a user types, and where they live (anything else: give the path). */
const PATHS = {
  pods: '/api/v1/pods',
  services: '/api/v1/services',
  nodes: '/api/v1/nodes',
  namespaces: '/api/v1/namespaces',
  configmaps: '/api/v1/configmaps',
  secrets: '/api/v1/secrets',
  events: '/api/v1/events',
  persistentvolumeclaims: '/api/v1/persistentvolumeclaims',
  deployments: '/apis/apps/v1/deployments',
  replicasets: '/apis/apps/v1/replicasets',
  statefulsets: '/apis/apps/v1/statefulsets',
  daemonsets: '/apis/apps/v1/daemonsets',
  jobs: '/apis/batch/v1/jobs',
  cronjobs: '/apis/batch/v1/cronjobs',
  ingresses: '/apis/networking.k8s.io/v1/ingresses',
};

/** Rows rendered beyond the visible ones, above and below. */
const OVERSCAN = 8;

const STYLE = `
:host {
  display: block;
  --_fg: var(--kubelive-color, #1f2328);
  --_bg: var(--kubelive-background, #fff);
  --_muted: var(--kubelive-muted-color, #656d76);
  --_border: var(--kubelive-border-color, #d0d7de);
  --_header-bg: var(--kubelive-header-background, #f6f8fa);
  --_hover: var(--kubelive-row-hover-background, #eaeef2);
  --_error: var(--kubelive-error-color, #cf222e);
  --_accent: var(--kubelive-accent-color, #0969da);
  color: var(--_fg);
  background: var(--_bg);
  font: var(--kubelive-font, 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
  border: 1px solid var(--_border);
  contain: content;
}
[part~=status] { padding: 4px 8px; color: var(--_muted); border-bottom: 1px solid var(--_border); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
[part~=status][data-tone=error] { color: var(--_error); }
[part~=header] { display: grid; background: var(--_header-bg); border-bottom: 1px solid var(--_border); font-weight: 600; }
[part~=header-cell] { padding: 0 8px; height: var(--kubelive-row-height, 28px); line-height: var(--kubelive-row-height, 28px); cursor: pointer; user-select: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; text-transform: uppercase; }
[part~=header-cell][aria-sort=ascending]::after { content: " \\25B2"; color: var(--_accent); }
[part~=header-cell][aria-sort=descending]::after { content: " \\25BC"; color: var(--_accent); }
[part~=body] { position: relative; overflow: auto; height: var(--kubelive-height, 400px); }
[part~=spacer] { width: 1px; }
[part~=rows] { position: absolute; left: 0; right: 0; top: 0; }
[part~=row] { display: grid; height: var(--kubelive-row-height, 28px); line-height: var(--kubelive-row-height, 28px); border-bottom: 1px solid var(--_border); box-sizing: border-box; cursor: default; }
[part~=row]:hover { background: var(--_hover); }
[part~=row][data-state=added], [part~=row][data-state=changed] { box-shadow: inset 3px 0 var(--kubelive-changed-color, var(--_accent)); }
[part~=row][data-state=deleted] { color: var(--_muted); text-decoration: line-through; }
[part~=cell] { padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
[part~=empty] { padding: 8px; color: var(--_muted); }
[part~=detail] { position: relative; border-top: 1px solid var(--_border); background: var(--_header-bg); }
[part~=detail][hidden] { display: none; }
[part~=detail-title] { padding: 4px 8px; font-weight: 600; }
[part~=detail-close] { position: absolute; top: 2px; right: 4px; border: 0; background: none; color: inherit; font: inherit; cursor: pointer; }
[part~=detail-body] { margin: 0; padding: 4px 8px 8px; max-height: var(--kubelive-detail-height, 300px); overflow: auto; white-space: pre; }
`;

/** The NAMESPACE column kubectl adds across namespaces (`-A`): index -1. */
const NAMESPACE = Object.freeze({ name: 'Namespace', type: 'string', format: '', description: 'The namespace of the object', priority: 0 });

/** An answer before there is a view. */
const NO_WINDOW = Object.freeze({ first: 0, length: 0, columns: [], sort: null, rows: [], pending: false });

let shared = null;
function sheet() {
  if (!shared) {
    shared = new CSSStyleSheet();
    shared.replaceSync(STYLE);
  }
  return shared;
}

/** A `<div>` that is `part` (for `::part()`) and, for assistive tech, `role`. */
function div(part, role) {
  const el = document.createElement('div');
  el.setAttribute('part', part);
  if (role) el.setAttribute('role', role);
  return el;
}

function fire(element, type, detail) {
  element.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}

export class KubeliveTable extends HTMLElement {
  static observedAttributes = ['resource', 'namespace', 'label-selector', 'field-selector', 'base-url', 'wide', 'filter', 'shared', 'persist'];

  #watcher = null;
  /** The watcher's view this element draws (sorted, filtered, printed in wasm). */
  #view = null;
  #unsubscribe = [];
  /** A restart is scheduled (attribute changes in one task restart once). */
  #pending = false;
  /** Bumped by each (re)start: a start awaiting init() that is no longer current gives up. */
  #generation = 0;
  /** `{ id, descending }` of the column clicked, kept across restarts; null: the rows' own order. */
  #sort = null;
  /** The last window drawn. */
  #window = NO_WINDOW;
  #frame = 0;
  /** The status line shows `#lastStatus`. */
  #statusDrawn = true;
  /** The status drawn says restored for rows an earlier page kept. */
  #drawnRestored = false;
  /** The rows' height in px, once measured (0: measure). */
  #height = 0;
  #ageTimer = null;
  #lastStatus = null;
  /** The columns and sort the header was drawn for. */
  #headerFor = '';
  /** The row elements in view, by key (see `#render`). */
  #live = new Map();
  /** Row elements out of view, detached, for rows coming into view. */
  #spare = [];
  /** "No resources found.", shown when synced to an empty collection. */
  #empty = null;
  /** The row a pointer pressed (key and where), until its click. */
  #pressed = null;
  #els;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    // A constructed sheet, shared by every element: a page's CSP without
    // 'unsafe-inline' styles (style-src 'self') allows it, as it would not a <style>.
    root.adoptedStyleSheets = [sheet()];
    const status = div('status', 'status');
    const table = div('table', 'table');
    const header = div('header', 'row');
    const body = div('body', 'rowgroup');
    const spacer = div('spacer');
    const rows = div('rows');
    const detail = div('detail', 'region');
    detail.hidden = true;
    body.append(spacer, rows);
    table.append(header, body);
    root.append(status, table, detail);
    this.#els = { status, header, body, spacer, rows, detail };
    body.addEventListener('scroll', () => this.#schedule(), { passive: true });
    header.addEventListener('click', (e) => {
      const cell = e.target.closest('[data-id]');
      if (cell) this.#sortBy(cell.dataset.id);
    });
    // Delegated on the scrolling body, resolved by data-key when the click comes: a row
    // element stays while its object is in view, whatever changes around it.
    body.addEventListener('pointerdown', (e) => {
      const row = e.button === 0 ? e.target.closest('[data-key]') : null;
      this.#pressed = row ? { key: row.dataset.key, x: e.clientX, y: e.clientY } : null;
    });
    body.addEventListener('pointercancel', () => {
      this.#pressed = null;
    });
    body.addEventListener('click', (e) => this.#select(e));
    detail.addEventListener('click', (e) => {
      if (e.target.closest('[part~=detail-close]')) this.#closeDetail();
    });
  }

  /** The watcher of the current attributes (null while none runs). */
  get watcher() {
    return this.#watcher;
  }

  /** The view of the watcher the element shows (null while none runs). */
  get view() {
    return this.#view;
  }

  get wide() {
    return this.hasAttribute('wide');
  }

  set wide(on) {
    this.toggleAttribute('wide', Boolean(on));
  }

  /**
   * The Watcher's `persist`: `true` (attribute `persist`), `false` (`persist="false"`),
   * or null (no attribute: the Watcher's default, on for a shared table).
   */
  get persist() {
    if (!this.hasAttribute('persist')) return null;
    return this.getAttribute('persist') !== 'false';
  }

  set persist(on) {
    if (on === null || on === undefined) this.removeAttribute('persist');
    else this.setAttribute('persist', on ? '' : 'false');
  }

  /** Free text: only rows with every word in one of their shown cells (not ages). */
  get filter() {
    return this.getAttribute('filter') ?? '';
  }

  set filter(text) {
    if (text) this.setAttribute('filter', String(text));
    else this.removeAttribute('filter');
  }

  /** The columns shown (the server's, priority 0 unless `wide`; NAMESPACE first across namespaces). */
  get shownColumns() {
    const all = this.#watcher?.columns() ?? [];
    return this.#window.columns.map((c) => (c.index === -1 ? NAMESPACE : all[c.index] ?? c));
  }

  connectedCallback() {
    this.#restartSoon();
  }

  disconnectedCallback() {
    this.#stop();
  }

  attributeChangedCallback(name, before, after) {
    if (before === after || !this.isConnected) return;
    if (name === 'wide' || name === 'filter') {
      this.#view?.set(this.#viewOptions());
      this.#render();
    } else {
      this.#restartSoon();
    }
  }

  #viewOptions() {
    const sort = this.#sort ? `${this.#sort.descending ? '-' : ''}${this.#sort.id}` : '';
    return { sort, filter: this.filter, wide: this.wide };
  }

  #restartSoon() {
    if (this.#pending) return;
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      if (this.isConnected) this.#start();
    });
  }

  #stop() {
    this.#generation += 1;
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
    this.#view?.free();
    this.#view = null;
    this.#watcher?.free();
    this.#watcher = null;
    clearInterval(this.#ageTimer);
    this.#ageTimer = null;
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
  }

  async #start() {
    this.#stop();
    this.#closeDetail();
    const generation = this.#generation;
    this.#window = NO_WINDOW;
    this.#showStatus({ phase: 'loading', synced: false, objects: 0, error: null });
    this.#render();
    try {
      await init();
    } catch (e) {
      this.#fail(`cannot load kubelive's wasm: ${e.message ?? e}`);
      return;
    }
    if (generation !== this.#generation || !this.isConnected) return;
    const options = {
      path: this.#path(),
      format: 'table',
      namespace: this.getAttribute('namespace') || undefined,
      labelSelector: this.getAttribute('label-selector') || undefined,
      fieldSelector: this.getAttribute('field-selector') || undefined,
      baseUrl: this.getAttribute('base-url') || undefined,
      shared: this.hasAttribute('shared') || undefined,
      persist: this.persist ?? undefined,
    };
    let watcher;
    try {
      watcher = new Watcher(options);
    } catch (e) {
      this.#fail(`${e.message}`);
      return;
    }
    this.#watcher = watcher;
    this.#view = watcher.view(this.#viewOptions());
    this.#unsubscribe = [
      this.#view.onChange(() => this.#schedule()),
      watcher.onUpdate((version) => fire(this, 'kubelive-change', { version, size: watcher.size })),
      watcher.onStatus((status) => {
        this.#showStatus(status);
        fire(this, 'kubelive-status', status);
      }),
      watcher.onSynced((synced) => fire(this, 'kubelive-synced', synced)),
      watcher.onError((error) => fire(this, 'kubelive-error', error)),
    ];
    watcher.start();
    // Ages count on between changes.
    this.#ageTimer = setInterval(() => {
      if (this.#window.columns.some((c) => c.name === 'Age')) this.#schedule();
    }, 1000);
  }

  /** A click on the body: the row pressed, or else the row clicked, is selected. */
  #select(e) {
    const pressed = this.#pressed;
    this.#pressed = null;
    // Rows can move under a still pointer between press and release (rows inserted
    // above it, a re-sort): the browser then clicks their common ancestor, or another
    // row. A click where the press was means the row the user pressed.
    const still = pressed && e.detail > 0 && Math.hypot(e.clientX - pressed.x, e.clientY - pressed.y) < 4;
    const which = still ? pressed.key : e.target.closest('[data-key]')?.dataset.key;
    const shown = which !== undefined && this.#live.get(which);
    // The row as the watcher holds it now (a deleted one opens nothing).
    const found = shown && this.#watcher?.get(shown.namespace, shown.name);
    if (!found) return;
    const select = new CustomEvent('kubelive-select', { detail: { row: found }, bubbles: true, composed: true, cancelable: true });
    if (this.dispatchEvent(select)) this.#showDetail(found);
  }

  /** The object of `row`, as the server has it now (a GET), below the table. */
  async #showDetail(row) {
    const { detail } = this.#els;
    const which = `${row.metadata.namespace ?? ''}/${row.metadata.name}`;
    const title = div('detail-title');
    title.textContent = which;
    const close = document.createElement('button');
    close.setAttribute('part', 'detail-close');
    close.type = 'button';
    close.textContent = '×';
    close.setAttribute('aria-label', 'close');
    const text = document.createElement('pre');
    text.setAttribute('part', 'detail-body');
    text.textContent = 'loading…';
    detail.replaceChildren(title, close, text);
    detail.hidden = false;
    detail.dataset.key = which;
    const url = `${(this.getAttribute('base-url') || '').replace(/\/+$/, '')}${objectPath(this.#path(), row.metadata)}`;
    let shown;
    try {
      const r = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
      const body = await r.json();
      shown = r.ok ? JSON.stringify(masked(body), null, 2) : `${r.status} ${body.reason ?? ''}: ${body.message ?? ''}`;
    } catch (e) {
      shown = `cannot read ${url}: ${e.message ?? e}`;
    }
    if (detail.dataset.key === which && !detail.hidden) text.textContent = shown; // text, never markup
  }

  #closeDetail() {
    this.#els.detail.hidden = true;
    this.#els.detail.replaceChildren();
    delete this.#els.detail.dataset.key;
  }

  #path() {
    const resource = (this.getAttribute('resource') ?? '').trim();
    return PATHS[resource] ?? resource;
  }

  #fail(message) {
    const error = { code: null, reason: '', message, retryable: false };
    this.#showStatus({ phase: 'failed', synced: false, objects: 0, error });
    fire(this, 'kubelive-error', error);
  }

  /** Shows `status` with the next rows drawn (in their frame, not one of its own). */
  #showStatus(status) {
    this.#lastStatus = status;
    this.#statusDrawn = false;
    this.#schedule();
  }

  #drawStatus() {
    this.#statusDrawn = true;
    this.#drawnRestored = Boolean(this.#window.restored);
    // Rows kept by an earlier page, drawn before the watcher said anything: restored.
    const status = this.#drawnRestored && this.#lastStatus?.phase === 'loading'
      ? { phase: 'restored', synced: false, objects: this.#window.length, error: null }
      : this.#lastStatus;
    if (!status) return;
    const parts = [status.phase];
    if (status.phase !== 'loading' && status.phase !== 'failed') {
      parts.push(status.synced ? 'synced' : 'syncing');
      parts.push(`${status.objects} ${status.objects === 1 ? 'object' : 'objects'}`);
    }
    if (status.tablesUnavailable) parts.push(`no server tables: ${status.tablesUnavailable}`);
    if (status.error) {
      const code = status.error.code === null ? '' : `${status.error.code} `;
      parts.push(`error: ${code}${status.error.message}`);
    }
    const el = this.#els.status;
    el.textContent = parts.join(' · ');
    el.dataset.phase = status.phase;
    el.dataset.synced = String(Boolean(status.synced));
    el.dataset.tone = status.error ? 'error' : 'ok';
  }

  /** Synced to an empty collection ("No resources found.", as kubectl says). */
  #isEmpty() {
    const s = this.#lastStatus;
    return Boolean(s?.synced && !s.error && (this.#watcher?.size ?? 0) === 0);
  }

  #renderHeader(w) {
    const header = this.#els.header;
    const sort = w.sort ? `${w.sort.descending ? '-' : ''}${w.sort.column}` : '';
    const drawn = `${w.columns.map((c) => c.id).join(',')} ${sort}`;
    if (drawn === this.#headerFor) return;
    this.#headerFor = drawn;
    this.#height = 0;
    header.replaceChildren();
    header.style.gridTemplateColumns = template(w.columns);
    for (const c of w.columns) {
      const cell = div('header-cell', 'columnheader');
      cell.dataset.id = c.id;
      cell.textContent = c.name;
      if (c.description) cell.title = c.description;
      if (w.sort?.column === c.id) {
        cell.setAttribute('aria-sort', w.sort.descending ? 'descending' : 'ascending');
      }
      header.append(cell);
    }
  }

  /** A header click: the same column flips (ascending, then descending), another starts ascending. */
  #sortBy(id) {
    this.#sort = this.#sort?.id === id && !this.#sort.descending
      ? { id, descending: true }
      : { id, descending: false };
    this.#view?.set(this.#viewOptions());
    this.#render();
  }

  #schedule() {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render();
    });
  }

  /** The rows' height, read (a style recalculation) once per header drawn, not each frame. */
  #rowHeight() {
    if (this.#height > 0) return this.#height;
    const h = Number.parseFloat(getComputedStyle(this.#els.header.firstElementChild ?? this.#els.status).height);
    if (h > 0 && this.#els.header.firstElementChild) this.#height = h;
    return h > 0 ? h : 28;
  }

  /**
   * Draws the window of rows in view, keyed: a row whose object stays in view keeps
   * its element and only its changed cells' text is set; elements of rows leaving the
   * view are reused for rows entering it; elements move only where the order changed.
   */
  #render() {
    if (!this.#statusDrawn) this.#drawStatus();
    const { body, spacer, rows: box } = this.#els;
    const height = this.#rowHeight();
    const first = Math.max(0, Math.floor(body.scrollTop / height) - OVERSCAN);
    const visible = Math.ceil((body.clientHeight || 400) / height) + 2 * OVERSCAN;
    const w = this.#view && !this.#view.freed ? this.#view.window(first, visible) : NO_WINDOW;
    this.#window = w;
    if (Boolean(w.restored) !== this.#drawnRestored) this.#drawStatus();
    if (w.pending) this.#schedule();
    this.#renderHeader(w);
    const grid = template(w.columns);
    spacer.style.height = `${w.length * height}px`;
    box.style.transform = `translateY(${w.first * height}px)`;
    const inView = new Set(w.rows.map((r) => r.key));
    for (const [k, view] of this.#live) {
      if (inView.has(k)) continue;
      this.#live.delete(k);
      view.el.remove();
      this.#spare.push(view);
    }
    let at = box.firstChild;
    for (const row of w.rows) {
      let view = this.#live.get(row.key);
      if (!view) {
        view = this.#spare.pop() ?? { el: div('row', 'row'), texts: [], template: '' };
        view.el.dataset.key = row.key;
        this.#live.set(row.key, view);
      }
      view.namespace = row.namespace;
      view.name = row.name;
      fill(view, row, grid);
      if (view.el === at) at = at.nextSibling;
      else box.insertBefore(view.el, at);
    }
    if (w.length === 0 && this.#isEmpty()) {
      if (!this.#empty) {
        this.#empty = div('empty');
        this.#empty.textContent = 'No resources found.';
      }
      if (this.#empty !== at) box.insertBefore(this.#empty, at);
      at = this.#empty.nextSibling;
    }
    while (at) {
      const next = at.nextSibling;
      at.remove();
      at = next;
    }
  }
}

/** The grid's columns: the name wider than the rest. */
function template(columns) {
  return columns.map((c) => (c.format === 'name' ? 'minmax(12ch, 3fr)' : 'minmax(6ch, 1fr)')).join(' ');
}

/** Sets `view`'s cells to `row`'s, touching only the cells whose text changed. */
function fill(view, row, template) {
  const { el, texts } = view;
  if (view.template !== template) {
    el.style.gridTemplateColumns = template;
    view.template = template;
  }
  const cells = row.cells;
  while (el.children.length > cells.length) el.lastChild.remove();
  while (el.children.length < cells.length) el.append(div('cell', 'cell'));
  texts.length = cells.length;
  cells.forEach((text, n) => {
    if (texts[n] !== text) {
      el.children[n].textContent = text; // text, never markup
      texts[n] = text;
    }
  });
  if (row.state) el.dataset.state = row.state;
  else delete el.dataset.state;
}

/** The object's own path: its collection's, with its namespace, then its name. */
function objectPath(collection, metadata) {
  const parts = collection.split('/').filter(Boolean);
  const base = parts[0] === 'api' ? parts.slice(0, 2) : parts.slice(0, 3);
  const plural = parts[parts.length - 1];
  const ns = metadata.namespace ? ['namespaces', encodeURIComponent(metadata.namespace)] : [];
  return `/${[...base, ...ns, plural, encodeURIComponent(metadata.name)].join('/')}`;
}

/** A Secret with its values masked: a click shows an object, not its secrets. */
function masked(object) {
  if (object?.kind !== 'Secret') return object;
  const hide = (m) => (m ? Object.fromEntries(Object.keys(m).map((k) => [k, '••••••'])) : m);
  return { ...object, data: hide(object.data), stringData: hide(object.stringData) };
}

if (!customElements.get('kubelive-table')) {
  customElements.define('kubelive-table', KubeliveTable);
}
