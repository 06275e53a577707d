// <kubelive-table>: a live, sortable, virtualised table of one Kubernetes collection,
// printed by the server as `kubectl get` prints it. Importing this module defines the
// element; every element on the page shares the one wasm instance `init()` loads.
//
// Attributes (a change restarts the watch, except `wide`): `resource` (a collection
// path such as `/api/v1/pods`, or a common plural such as `pods`), `namespace`,
// `label-selector`, `field-selector`, `base-url`, `wide` (every column, as `-o wide`).
// DOM events (bubbling, composed): `kubelive-change`, `kubelive-status`,
// `kubelive-synced`, `kubelive-error`, `kubelive-select` (a row clicked; unless the
// page cancels it, the element shows the object below the table, fetched then, its
// Secret values masked). Cells are text (textContent), never markup.

import init, { Watcher } from './index.js';

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
[part~=cell] { padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
[part~=empty] { padding: 8px; color: var(--_muted); }
[part~=detail] { position: relative; border-top: 1px solid var(--_border); background: var(--_header-bg); }
[part~=detail][hidden] { display: none; }
[part~=detail-title] { padding: 4px 8px; font-weight: 600; }
[part~=detail-close] { position: absolute; top: 2px; right: 4px; border: 0; background: none; color: inherit; font: inherit; cursor: pointer; }
[part~=detail-body] { margin: 0; padding: 4px 8px 8px; max-height: var(--kubelive-detail-height, 300px); overflow: auto; white-space: pre; }
`;

/** kubectl's `HumanDuration` (k8s.io/apimachinery/pkg/util/duration), from seconds. */
export function humanDuration(seconds) {
  // Up to a second in the future is clock skew ("0s"); more is "<invalid>".
  if (Math.trunc(seconds) < -1) return '<invalid>';
  const s = Math.max(0, Math.trunc(seconds));
  if (s < 60 * 2) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 60 * 3) return `${m}m`;
  const h = Math.floor(s / 3600);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  if (h < 24 * 365 * 8) {
    const days = Math.floor(h / 24) % 365;
    return days === 0 ? `${Math.floor(h / 24 / 365)}y` : `${Math.floor(h / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(h / 24 / 365)}y`;
}

/** Seconds of a printed duration (`5m`, `2d3h`, `45s`), or NaN. */
function parseDuration(text) {
  const m = /^(?:(\d+)y)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m || text === '') return NaN;
  const [y, d, h, min, s] = m.slice(1).map((v) => Number(v ?? 0));
  return (((y * 365 + d) * 24 + h) * 60 + min) * 60 + s;
}

/** A cell as kubectl prints it: strings as they are, null as `<none>`. */
function cellText(cell) {
  if (cell === null || cell === undefined) return '<none>';
  if (typeof cell === 'object') return JSON.stringify(cell);
  return String(cell);
}

function isAge(column) {
  return column.name === 'Age';
}

/** The NAMESPACE column kubectl adds across namespaces (`-A`): index -1. */
const NAMESPACE = Object.freeze({ name: 'Namespace', type: 'string', format: '', description: 'The namespace of the object', priority: 0 });

/** A sort key of `row` in `column` (index `i`): numbers numerically, times by timestamp. */
function sortKey(row, column, i) {
  if (i === -1) return row.metadata.namespace ?? '';
  const cell = row.cells[i];
  if (isAge(column)) {
    // Older first when ascending by Age means the smallest creation time last: sort
    // by age, i.e. by minus the creation timestamp.
    const t = Date.parse(row.metadata.creationTimestamp ?? '');
    return Number.isNaN(t) ? Infinity : -t;
  }
  // Numbers numerically, whatever type the column declares (the built-in printers
  // declare some integer columns `string`, e.g. a deployment's Available).
  if (typeof cell === 'number') return cell;
  if (column.type === 'integer' || column.type === 'number') {
    const n = typeof cell === 'number' ? cell : Number.parseFloat(cell);
    return Number.isNaN(n) ? -Infinity : n;
  }
  if (column.type === 'date') {
    const t = Date.parse(cell ?? '');
    if (!Number.isNaN(t)) return t;
    const ago = parseDuration(String(cell ?? ''));
    return Number.isNaN(ago) ? -Infinity : -ago;
  }
  return cellText(cell);
}

function compare(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

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
  static observedAttributes = ['resource', 'namespace', 'label-selector', 'field-selector', 'base-url', 'wide'];

  #watcher = null;
  #unsubscribe = [];
  /** A restart is scheduled (attribute changes in one task restart once). */
  #pending = false;
  /** Bumped by each (re)start: a start awaiting init() that is no longer current gives up. */
  #generation = 0;
  #sort = null; // { index, descending }
  #rows = [];
  #columns = [];
  #sortedFor = null; // [snapshot, columns, sort] the rows were sorted for
  #frame = 0;
  #ageTimer = null;
  #lastStatus = null;
  /** The shown columns the header was drawn for. */
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
      const cell = e.target.closest('[data-index]');
      if (cell) this.#sortBy(Number(cell.dataset.index));
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

  get wide() {
    return this.hasAttribute('wide');
  }

  set wide(on) {
    this.toggleAttribute('wide', Boolean(on));
  }

  /** The columns shown (the server's, priority 0 unless `wide`). */
  get shownColumns() {
    return this.#shown().map((i) => this.#column(i));
  }

  connectedCallback() {
    this.#restartSoon();
  }

  disconnectedCallback() {
    this.#stop();
  }

  attributeChangedCallback(name, before, after) {
    if (before === after || !this.isConnected) return;
    if (name === 'wide') {
      this.#renderHeader();
      this.#render();
    } else {
      this.#restartSoon();
    }
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
    this.#rows = [];
    this.#columns = [];
    this.#sortedFor = null;
    this.#showStatus({ phase: 'loading', synced: false, objects: 0, error: null });
    this.#renderHeader();
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
    };
    let watcher;
    try {
      watcher = new Watcher(options);
    } catch (e) {
      this.#fail(`${e.message}`);
      return;
    }
    this.#watcher = watcher;
    this.#unsubscribe = [
      watcher.onUpdate((version) => {
        this.#schedule();
        fire(this, 'kubelive-change', { version, size: watcher.size });
      }),
      watcher.onColumns((columns) => {
        this.#columns = columns;
        this.#sortedFor = null;
        this.#renderHeader();
        this.#schedule();
      }),
      watcher.onStatus((status) => {
        this.#showStatus(status);
        fire(this, 'kubelive-status', status);
      }),
      watcher.onSynced((synced) => fire(this, 'kubelive-synced', synced)),
      watcher.onError((error) => fire(this, 'kubelive-error', error)),
    ];
    watcher.start();
    // Age counts on between changes.
    this.#ageTimer = setInterval(() => {
      if (this.#columns.some(isAge)) this.#render();
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
    const found = which !== undefined && this.#ordered().find((r) => key(r) === which);
    if (!found) return;
    const select = new CustomEvent('kubelive-select', { detail: { row: found }, bubbles: true, composed: true, cancelable: true });
    if (this.dispatchEvent(select)) this.#showDetail(found);
  }

  /** The object of `row`, as the server has it now (a GET), below the table. */
  async #showDetail(row) {
    const { detail } = this.#els;
    const which = key(row);
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

  #showStatus(status) {
    const wasEmpty = this.#isEmpty();
    this.#lastStatus = status;
    if (wasEmpty !== this.#isEmpty()) this.#schedule();
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

  /** Whether rows span namespaces (no namespace asked for, and namespaced rows). */
  #acrossNamespaces() {
    if (this.getAttribute('namespace') || (this.getAttribute('resource') ?? '').includes('/namespaces/')) return false;
    const first = this.#watcher?.snapshot()[0];
    return first !== undefined && first.metadata.namespace !== undefined;
  }

  #column(i) {
    return i === -1 ? NAMESPACE : this.#columns[i];
  }

  #shown() {
    const wide = this.wide;
    const shown = this.#columns.length > 0 && this.#acrossNamespaces() ? [-1] : [];
    this.#columns.forEach((c, i) => {
      if (wide || c.priority === 0) shown.push(i);
    });
    return shown;
  }

  #template() {
    return this.#shown()
      .map((i) => (this.#column(i).format === 'name' ? 'minmax(12ch, 3fr)' : 'minmax(6ch, 1fr)'))
      .join(' ');
  }

  #renderHeader() {
    const header = this.#els.header;
    header.replaceChildren();
    header.style.gridTemplateColumns = this.#template();
    this.#headerFor = this.#shown().join(',');
    for (const i of this.#shown()) {
      const c = this.#column(i);
      const cell = div('header-cell', 'columnheader');
      cell.dataset.index = String(i);
      cell.textContent = c.name;
      if (c.description) cell.title = c.description;
      if (this.#sort?.index === i) {
        cell.setAttribute('aria-sort', this.#sort.descending ? 'descending' : 'ascending');
      }
      header.append(cell);
    }
  }

  #sortBy(index) {
    this.#sort = this.#sort?.index === index && !this.#sort.descending
      ? { index, descending: true }
      : { index, descending: false };
    this.#sortedFor = null;
    this.#renderHeader();
    this.#render();
  }

  /** The rows in display order (re-sorted only when the snapshot, columns or sort moved). */
  #ordered() {
    const snapshot = this.#watcher?.snapshot() ?? [];
    const f = this.#sortedFor;
    if (f && f[0] === snapshot && f[1] === this.#columns && f[2] === this.#sort) return this.#rows;
    let rows = snapshot;
    const sort = this.#sort;
    const column = sort && this.#column(sort.index);
    if (column) {
      const keyed = snapshot.map((row) => [sortKey(row, column, sort.index), row]);
      // Stable: equal keys keep namespace/name order.
      keyed.sort((a, b) => compare(a[0], b[0]) * (sort.descending ? -1 : 1));
      rows = keyed.map(([, row]) => row);
    }
    this.#rows = rows;
    this.#sortedFor = [snapshot, this.#columns, sort];
    return rows;
  }

  #schedule() {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render();
    });
  }

  #rowHeight() {
    const h = Number.parseFloat(getComputedStyle(this.#els.header.firstElementChild ?? this.#els.status).height);
    return h > 0 ? h : 28;
  }

  /**
   * Draws the rows in view, keyed: a row whose object stays in view keeps its element
   * and only its changed cells' text is set; elements of rows leaving the view are
   * reused for rows entering it; elements move only where the order changed.
   */
  #render() {
    const rows = this.#ordered();
    const template = this.#template();
    if (this.#headerFor !== this.#shown().join(',')) this.#renderHeader();
    const { body, spacer, rows: box } = this.#els;
    const height = this.#rowHeight();
    spacer.style.height = `${rows.length * height}px`;
    const first = Math.max(0, Math.floor(body.scrollTop / height) - OVERSCAN);
    const visible = Math.ceil((body.clientHeight || 400) / height) + 2 * OVERSCAN;
    const last = Math.min(rows.length, first + visible);
    box.style.transform = `translateY(${first * height}px)`;
    const inView = new Set();
    for (let r = first; r < last; r++) inView.add(key(rows[r]));
    for (const [k, view] of this.#live) {
      if (inView.has(k)) continue;
      this.#live.delete(k);
      view.el.remove();
      this.#spare.push(view);
    }
    const shown = this.#shown();
    const now = Date.now();
    let at = box.firstChild;
    for (let r = first; r < last; r++) {
      const row = rows[r];
      const k = key(row);
      let view = this.#live.get(k);
      if (!view) {
        view = this.#spare.pop() ?? { el: div('row', 'row'), texts: [], template: '' };
        view.el.dataset.key = k;
        this.#live.set(k, view);
      }
      fill(view, row, shown.map((i) => this.#column(i)), shown, template, now);
      if (view.el === at) at = at.nextSibling;
      else box.insertBefore(view.el, at);
    }
    if (rows.length === 0 && this.#isEmpty()) {
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

/** Sets `view`'s cells to `row`'s, touching only the cells whose text changed. */
function fill(view, row, columns, shown, template, now) {
  const { el, texts } = view;
  if (view.template !== template) {
    el.style.gridTemplateColumns = template;
    view.template = template;
  }
  while (el.children.length > shown.length) el.lastChild.remove();
  while (el.children.length < shown.length) el.append(div('cell', 'cell'));
  texts.length = shown.length;
  shown.forEach((i, n) => {
    const column = columns[n];
    let text;
    if (i === -1) {
      text = row.metadata.namespace ?? '';
    } else if (isAge(column) && row.metadata.creationTimestamp) {
      text = humanDuration((now - Date.parse(row.metadata.creationTimestamp)) / 1000);
    } else {
      text = cellText(row.cells[i]);
    }
    if (texts[n] !== text) {
      el.children[n].textContent = text; // text, never markup
      texts[n] = text;
    }
  });
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

function key(row) {
  return `${row.metadata.namespace ?? ''}/${row.metadata.name}`;
}

if (!customElements.get('kubelive-table')) {
  customElements.define('kubelive-table', KubeliveTable);
}
