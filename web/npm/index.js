// kubelive: a live, correct copy of a Kubernetes collection in the browser.
//
// `Watcher` is an EventTarget around the wasm engine (`WatcherCore`, internal). It
// owns what is JavaScript's to own:
// * lifetime: a started watcher is held here until stop()/free()/a failure, so a page
//   need not keep a reference for it to keep working (the wasm object would otherwise
//   be freed by the garbage collector and its watch aborted);
// * events: the core's hooks become `change`, `update`, `status`, `synced`, `reset`,
//   `error` and (table mode) `columns` and `tablesUnavailable` events; `status` events
//   for counters alone are throttled;
// * calls after free() fail with an error naming the method;
// * views (`watcher.view(options)`): the rows sorted and filtered by kubelive's table
//   model, read a window at a time, as plain data (see `View`).
// The hooks hold the watcher weakly: a stopped watcher nobody references is collected
// (and its wasm memory freed) as any object is.
//
// With `persist` (on by default for a shared table watcher) the engine starts from the
// view it kept in IndexedDB (the rows at once, then a watch from their version) and
// keeps saving it: the wasm's WatcherCore does it, in the page or in the worker.
//
// With `shared: true` the engine runs in kubelive's worker (worker.js: a SharedWorker,
// one engine per view for every tab of the origin; a dedicated Worker where the browser
// has no SharedWorker) and `SharedCore` stands in for `WatcherCore`: same methods, same
// hooks, fed by messages.

import initWasm, {
  WatcherCore, humanDuration, hubHeartbeatMs, forgetSavedViews as forgetViews, keptScreen, keepScreen,
} from './kubelive_watcher.js';

export { humanDuration };

/**
 * Drops every view persisted watchers kept in this origin's IndexedDB (running ones
 * keep saving theirs: stop them, or use `persist: false`, to keep nothing).
 */
export async function forgetSavedViews() {
  if (!loaded) await init();
  return forgetViews();
}

let loading = null;
let loaded = false;
/** Where the wasm was loaded from, when init() was given a URL: the worker loads it too. */
let wasmHref;

/**
 * Loads and instantiates the wasm module (once: later calls return the same promise).
 * By default it is fetched next to this file; pass a URL (or a Response, bytes, or a
 * compiled WebAssembly.Module) to load it from elsewhere.
 */
export default function init(module) {
  if (!loading) {
    const input = module === undefined ? undefined : { module_or_path: module };
    if (typeof module === 'string' || module instanceof URL) wasmHref = new URL(module, import.meta.url).href;
    loading = initWasm(input).then(
      () => { loaded = true; },
      (e) => { loading = null; throw e; },
    );
  }
  return loading;
}
export { init };

/** Started watchers: alive until stopped, referenced by the page or not. */
const running = new Set();

/** Status events for counters alone come at most this often (state changes at once). */
const STATUS_EVERY_MS = 250;

export class Watcher extends EventTarget {
  #core;
  #freed = false;
  /** Depth of core calls in progress that may call back (a free() inside waits). */
  #calls = 0;
  #statusTimer = null;
  #wantsChanges = false;

  constructor(options) {
    super();
    if (!loaded) {
      throw new Error('kubelive: the wasm module is not loaded: `await init()` before `new Watcher(...)`');
    }
    const self = new WeakRef(this);
    const hooks = {
      change: (type, object) => self.deref()?.#emit('change', { type, object }),
      update: (version) => self.deref()?.#emit('update', { version }),
      synced: (objects, resourceVersion) => self.deref()?.#emit('synced', { objects, resourceVersion }),
      reset: (reason) => self.deref()?.#emit('reset', { reason }),
      error: (error) => self.deref()?.#emit('error', error),
      columns: (columns) => self.deref()?.#emit('columns', { columns }),
      tablesUnavailable: (reason) => self.deref()?.#emit('tablesUnavailable', { reason }),
      status: (urgent) => self.deref()?.#statusChanged(urgent),
      history: (namespace, name) => self.deref()?.#emit('history', { namespace, name }),
    };
    const shared = sharedOption(options);
    const engineOptions = withPersist(withoutShared(options), shared);
    this.#core = shared
      ? new SharedCore(engineOptions, hooks)
      : new WatcherCore(engineOptions, hooks);
    // Bound, so they can be passed as they are (React's useSyncExternalStore).
    this.subscribe = this.subscribe.bind(this);
    this.snapshot = this.snapshot.bind(this);
    this.columns = this.columns.bind(this);
  }

  /** Starts watching; after stop() resumes where it stopped. Running: does nothing. */
  start() {
    this.#live('start()');
    this.#calling(() => this.#core.start());
    if (this.#core.running) running.add(this);
  }

  /** Stops watching and aborts what is in flight; what is held stays readable. */
  stop() {
    this.#live('stop()');
    this.#calling(() => this.#core.stop());
    running.delete(this);
  }

  /** Stops (a last `status` event says `stopped`) and frees the wasm memory. */
  free() {
    if (this.#freed) return;
    this.#calling(() => this.#core.stop());
    if (this.#statusTimer !== null) this.#flushStatus();
    running.delete(this);
    this.#freed = true;
    const core = this.#core;
    if (this.#calls > 0) queueMicrotask(() => core.free());
    else core.free();
  }

  /** Every object held, sorted by namespace and name; the same array until a change. */
  snapshot() {
    this.#live('snapshot()');
    return this.#core.snapshot();
  }

  /** One object (namespace `''` for cluster-scoped ones), or undefined. */
  get(namespace, name) {
    this.#live('get()');
    if (typeof namespace !== 'string' || typeof name !== 'string') {
      throw new TypeError(`Watcher.get(namespace, name): both must be strings, got ${typeof namespace} and ${typeof name}`);
    }
    return this.#core.get(namespace, name);
  }
  /**
   * What changed in one object (namespace `''` for cluster-scoped ones) since the
   * watcher synced, newest first: `[{ kind, resourceVersion, uid, time, changes: [{ path,
   * before, after }] }]`. A shared watcher's is kept in the worker: this returns the
   * last answer it sent (`[]` before the first), asks again when the watcher moved, and
   * a `history` event ({ namespace, name }) says when a different answer came.
   */
  history(namespace, name) {
    this.#live('history()');
    if (typeof namespace !== 'string' || typeof name !== 'string') {
      throw new TypeError(`Watcher.history(namespace, name): both must be strings, got ${typeof namespace} and ${typeof name}`);
    }
    return this.#core.history(namespace, name);
  }


  status() {
    this.#live('status()');
    return this.#core.status();
  }

  /** Table mode: the server's column definitions (the same frozen array until they change), or null. */
  columns() {
    this.#live('columns()');
    return this.#core.columns();
  }

  /**
   * A view of the rows for a table that shows a window of them: sorted and filtered by
   * kubelive's table model (the app's), read with `view.window(first, count)`.
   * `options`: `{ sort, filter, wide }` (see `View.set`). `free()` it when done.
   */
  view(options) {
    this.#live('view()');
    const id = this.#core.createView(options);
    return new View(this, this.#core, id);
  }

  get size() {
    this.#live('size');
    return this.#core.size;
  }

  get version() {
    this.#live('version');
    return this.#core.version;
  }

  get freed() {
    return this.#freed;
  }

  onChange(fn) { return this.#on('change', 'onChange', fn, (e) => e.detail); }
  onUpdate(fn) { return this.#on('update', 'onUpdate', fn, (e) => e.detail.version); }
  onStatus(fn) { return this.#on('status', 'onStatus', fn, (e) => e.detail); }
  onSynced(fn) { return this.#on('synced', 'onSynced', fn, (e) => e.detail); }
  onReset(fn) { return this.#on('reset', 'onReset', fn, (e) => e.detail); }
  onError(fn) { return this.#on('error', 'onError', fn, (e) => e.detail); }
  onColumns(fn) { return this.#on('columns', 'onColumns', fn, (e) => e.detail.columns); }
  onTablesUnavailable(fn) { return this.#on('tablesUnavailable', 'onTablesUnavailable', fn, (e) => e.detail.reason); }

  /** Calls `fn` after each batch of changes (for useSyncExternalStore). */
  subscribe(fn) { return this.#on('update', 'subscribe', fn, () => undefined); }

  addEventListener(type, listener, options) {
    if (type === 'change' && !this.#wantsChanges && !this.#freed) {
      this.#wantsChanges = true;
      this.#core.wantChanges();
    }
    super.addEventListener(type, listener, options);
  }

  #on(type, method, fn, pick) {
    this.#live(`${method}()`);
    if (typeof fn !== 'function') {
      throw new TypeError(`Watcher.${method}(callback): callback must be a function, got ${fn === null ? 'null' : typeof fn}`);
    }
    const listener = (e) => fn(pick(e));
    this.addEventListener(type, listener);
    return () => this.removeEventListener(type, listener);
  }

  #live(method) {
    if (this.#freed) {
      throw new Error(`Watcher.${method}: this watcher was freed (free() was called); create a new one`);
    }
  }

  #calling(f) {
    this.#calls += 1;
    try {
      return f();
    } finally {
      this.#calls -= 1;
    }
  }

  #emit(type, detail) {
    if (!this.#freed) this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  #statusChanged(urgent) {
    if (this.#freed) return;
    if (!this.#core.running) running.delete(this);
    if (urgent) {
      this.#flushStatus();
    } else if (this.#statusTimer === null) {
      this.#statusTimer = setTimeout(() => this.#flushStatus(), STATUS_EVERY_MS);
    }
  }

  #flushStatus() {
    if (this.#statusTimer !== null) {
      clearTimeout(this.#statusTimer);
      this.#statusTimer = null;
    }
    if (!this.#freed) this.#emit('status', this.#core.status());
  }
}

/**
 * The rows of a `Watcher` as a table shows them, sorted and filtered by kubelive's table
 * model (the app's: a sorted, filtered index kept up to date change by change), read a
 * window at a time. What it takes and gives is plain data (structured-cloneable, no
 * functions, no identity), so the same requests can cross a `postMessage`.
 *
 * A `change` event (or `onChange`) says the window's rows may have changed: ask for
 * the window again (in the next animation frame); an answer with `pending: true` asks
 * to be asked again on the next frame too (work left, rows flashing or fading).
 */
export class View extends EventTarget {
  #watcher;
  #core;
  #id;
  #freed = false;
  #off;

  constructor(watcher, core, id) {
    super();
    this.#watcher = watcher;
    this.#core = core;
    this.#id = id;
    const changed = () => this.#changed();
    // Shared: a window answer from the worker that differs from the last is a change
    // (the core asks again at each update), not the update itself.
    const offCore = core.onViewChange?.(id, changed);
    const types = offCore ? ['columns', 'tablesUnavailable', 'reset'] : ['update', 'columns', 'tablesUnavailable', 'reset'];
    for (const type of types) watcher.addEventListener(type, changed);
    this.#off = () => {
      for (const type of types) watcher.removeEventListener(type, changed);
      offCore?.();
    };
  }

  /**
   * Rows `first .. first + count` (at most 1000): `{ first, length, columns, sort, rows,
   * pending }`; each row `{ key, namespace, name, cells, state, elapsed }`, its cells
   * the shown columns' text as kubectl prints them (ages counted to now), `state`
   * `'added'`, `'changed'`, `'deleted'` (a moment, fading) or `''`, `elapsed` the ms
   * since that change.
   */
  window(first, count) {
    this.#live('window()');
    return this.#core.window(this.#id, first, count);
  }

  /** Rows in the view (a filter's matches so far while it is being applied). */
  get length() {
    return this.window(0, 0).length;
  }

  /**
   * Changes what the view shows; absent options stay. `sort`: a column's id (`name`,
   * `restarts`, `nominated-node`), `-` first for descending, `''` for the rows' own
   * order (namespace, name); `filter`: words that must each appear in one of a row's
   * shown cells (case-insensitive; not time cells); `wide`: every column (`-o wide`).
   */
  set(options) {
    this.#live('set()');
    this.#core.setView(this.#id, options);
    this.#changed();
  }

  /** Calls `fn` when the window's rows may have changed; returns an unsubscribe function. */
  onChange(fn) {
    this.#live('onChange()');
    if (typeof fn !== 'function') {
      throw new TypeError(`View.onChange(callback): callback must be a function, got ${fn === null ? 'null' : typeof fn}`);
    }
    const listener = () => fn();
    this.addEventListener('change', listener);
    return () => this.removeEventListener('change', listener);
  }

  /** Forgets the view (its watcher goes on). */
  free() {
    if (this.#freed) return;
    this.#freed = true;
    this.#off();
    if (!this.#watcher.freed) this.#core.dropView(this.#id);
  }

  get freed() {
    return this.#freed || this.#watcher.freed;
  }

  #changed() {
    if (!this.freed) this.dispatchEvent(new Event('change'));
  }

  #live(method) {
    if (this.#freed) throw new Error(`View.${method}: this view was freed (free() was called)`);
    if (this.#watcher.freed) throw new Error(`View.${method}: its watcher was freed`);
  }
}

/** The `shared` option, checked (the rest are the wasm's to check). */
function sharedOption(options) {
  if (options === null || typeof options !== 'object' || !('shared' in options)) return false;
  const shared = options.shared;
  if (shared === undefined || shared === null) return false;
  if (typeof shared !== 'boolean') {
    throw new TypeError(`option shared must be a boolean, got ${typeof shared}`);
  }
  return shared;
}

function withoutShared(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options) || !('shared' in options)) return options;
  const { shared: _, ...rest } = options;
  return rest;
}

/**
 * `persist` as the engine takes it: when not given, on for a shared table watcher
 * whose rows can be kept (`includeObject: 'Metadata'`, `metadata: 'identity'` or not
 * given), off otherwise.
 */
function withPersist(options, shared) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return options;
  if (options.persist !== undefined && options.persist !== null) return options;
  const keepable = shared && options.format === 'table'
    && (options.includeObject ?? 'Metadata') === 'Metadata'
    && (options.metadata ?? 'identity') === 'identity';
  return keepable ? { ...options, persist: true } : options;
}

/** The page's one connection to kubelive's worker, made at the first shared watcher. */
let connection = null;

function connect() {
  if (connection) return connection;
  const url = new URL('./worker.js', import.meta.url);
  let port;
  let worker;
  if (typeof SharedWorker !== 'undefined') {
    worker = new SharedWorker(url, { type: 'module', name: 'kubelive' });
    port = worker.port;
  } else if (typeof Worker !== 'undefined') {
    worker = new Worker(url, { type: 'module', name: 'kubelive' });
    port = worker;
  } else {
    throw new Error('kubelive: option shared needs a SharedWorker or a Worker, and this environment has neither');
  }
  const subs = new Map();
  const failAll = (message) => {
    for (const core of subs.values()) core.receive({ t: 'failed', message });
  };
  connection = {
    subs,
    nextSub: 1,
    kind: port === worker ? 'Worker' : 'SharedWorker',
    // Nothing but the goodbye while the page is away (see pagehide below).
    post: (m) => {
      if (!away || m.t === 'bye') port.postMessage(m);
    },
  };
  let away = false;
  port.onmessage = (e) => {
    const m = e.data;
    if (m?.t === 'reopen') for (const core of subs.values()) core.reopen();
    else if (m?.sub === null) failAll(m.message);
    else subs.get(m?.sub)?.receive(m);
  };
  worker.addEventListener('error', (e) => failAll(`kubelive's worker failed: ${e.message ?? 'it could not be loaded (is worker.js served next to index.js, and does the CSP allow worker-src \'self\'?)'}`));
  connection.post({ t: 'init', wasm: wasmHref });
  const beat = () => connection.post({ t: 'beat' });
  let beating = setInterval(beat, hubHeartbeatMs());
  // The worker is not told when a page goes: say so (a page that cannot is dropped
  // after three missed heartbeats), and say nothing more while the page is away: some
  // engines run a page's timers in the back/forward cache, and any message would have
  // the worker take the page back and watch for it again. Back from the cache, a
  // heartbeat at once has the worker ask it to open its watchers again.
  addEventListener('pagehide', () => {
    connection.post({ t: 'bye' });
    away = true;
    clearInterval(beating);
  });
  addEventListener('pageshow', (e) => {
    if (!e.persisted) return;
    away = false;
    clearInterval(beating);
    beating = setInterval(beat, hubHeartbeatMs());
    beat();
  });
  return connection;
}

const EMPTY = Object.freeze([]);

/**
 * The newest of `answers` (range -> window) whose rows hold rows `first .. first +
 * count` (or all there are from `first`), cut to them: `{ range, window }`, else null.
 */
function within(answers, first, count) {
  let found = null;
  for (const [range, w] of answers) {
    const end = w.first + w.rows.length;
    if (w.first > first || first > end || (first + count > end && end < w.length)) continue;
    const at = first - w.first;
    found = { range, window: { ...w, first, rows: w.rows.slice(at, at + count) } };
  }
  return found;
}

/** Rows a shared view asks for with itself, before its page asks for a range. */
const FIRST_ROWS = 50;

/** A persisted view's first screen is kept this long after the view synced (ms), then at most this often. */
const KEEP_FIRST_MS = 1000;
const KEEP_EVERY_MS = 10000;

/** A screen as kept: its rows in no state (a restored row does not flash), its work done. */
const asKept = (w) => ({ ...w, rows: w.rows.map((r) => ({ ...r, state: '', elapsed: 0 })), pending: false });

/** A shared view's answer is asked again when this old (ms): its ages count in seconds. */
const REASK_MS = 1000;

/** An object's key in the store: `namespace/name`. */
const objectKey = (o) => `${o?.metadata?.namespace ?? ''}/${o?.metadata?.name ?? ''}`;

/**
 * `WatcherCore`'s stand-in when the engine runs in the worker: the same methods and
 * hooks. Options and view options are checked by an unstarted local `WatcherCore`
 * (the same errors, thrown at once); state comes in messages.
 */
class SharedCore {
  #hooks;
  #options;
  #local;
  #conn;
  #sub = 0;
  #open = false;
  #running = false;
  #status;
  #columns = null;
  #size = 0;
  #version = 0;
  /** Every object by key once asked for (snapshot, get, change events), else null. */
  #objects = null;
  #wantObjects = false;
  #wantsChanges = false;
  #snapshot = EMPTY;
  #snapshotAt = -1;
  /**
   * Views by id: { local, options, first, count (the range last asked for), answers (the
   * worker's last answer for each of the few ranges last asked for), newest (the last
   * answer of any range: shown, at its own rows, until the range's comes), inFlight, again,
   * req, changed, current (the range whose answer nothing has made stale since, else
   * null), answeredAt, kept (the first screen kept from an earlier page, shown until the
   * worker's rows come), screen (the first screen to keep next), keepTimer, keptOnce }.
   */
  #views = new Map();
  /** A status came from the worker. */
  #heard = false;
  #onPageHide = () => this.#keepScreens();
  #nextView = 1;
  /** Histories asked for, by 'namespace/name': { entries, askedAt (version), inFlight, req }. */
  #histories = new Map();
  #length = 0;

  constructor(options, hooks) {
    this.#local = new WatcherCore(options, {});
    this.#options = { ...options };
    this.#hooks = hooks;
    this.#status = this.#local.status();
    this.#conn = connect();
    if (this.#options.persist) addEventListener('pagehide', this.#onPageHide);
  }

  start() {
    if (this.#open) return;
    this.#open = true;
    this.#running = true;
    this.#sub = this.#conn.nextSub++;
    this.#conn.subs.set(this.#sub, this);
    this.reopen();
    // As a local engine's start() says at once (the worker's status follows); a
    // persisted one's first status is the worker's (`restored`, or `listing` when
    // nothing was kept), not a `listing` shown while the kept view is read.
    if (this.#options.persist) return;
    const phase = this.#status.mode === 'streamingList' ? 'initialEvents' : 'listing';
    this.#status = { ...this.#status, phase, error: null };
    this.#hooks.status?.(true);
  }

  /** Opens this watcher's subscription (again): its views and object feed too. */
  reopen() {
    if (!this.#open) return;
    this.#conn.post({ t: 'open', sub: this.#sub, options: this.#options });
    if (this.#wantObjects) this.#conn.post({ t: 'objects', sub: this.#sub });
    for (const [id, v] of this.#views) {
      this.#conn.post({ t: 'view', sub: this.#sub, view: id, options: v.options });
      v.inFlight = false;
      v.current = null;
      // The range the page asked for last; before it asks for one, the first rows,
      // asked with the view: a table has them when it first draws (a reloading page
      // would otherwise wait for a round trip after its first frame).
      if (v.req === 0) [v.first, v.count] = [0, FIRST_ROWS];
      this.#ask(id, v);
    }
  }

  stop() {
    if (!this.#open) return;
    this.#close();
    this.#status = { ...this.#status, phase: 'stopped', connected: false };
    this.#hooks.status?.(true);
  }

  #close() {
    this.#conn.post({ t: 'close', sub: this.#sub });
    this.#conn.subs.delete(this.#sub);
    this.#open = false;
    this.#running = false;
  }

  free() {
    if (this.#open) this.#close();
    removeEventListener('pagehide', this.#onPageHide);
    for (const v of this.#views.values()) clearTimeout(v.keepTimer);
    this.#local.free();
  }

  get running() {
    return this.#running;
  }

  wantChanges() {
    this.#wantsChanges = true;
    this.#askObjects();
  }

  #askObjects() {
    if (this.#wantObjects) return;
    this.#wantObjects = true;
    if (this.#open) this.#conn.post({ t: 'objects', sub: this.#sub });
  }

  snapshot() {
    this.#askObjects();
    if (!this.#objects) return EMPTY;
    if (this.#snapshotAt !== this.#version) {
      const keyed = [...this.#objects];
      keyed.sort((a, b) => {
        const [na, ma] = [a[1].metadata?.namespace ?? '', a[1].metadata?.name ?? ''];
        const [nb, mb] = [b[1].metadata?.namespace ?? '', b[1].metadata?.name ?? ''];
        return na < nb ? -1 : na > nb ? 1 : ma < mb ? -1 : ma > mb ? 1 : 0;
      });
      this.#snapshot = Object.freeze(keyed.map((e) => e[1]));
      this.#snapshotAt = this.#version;
    }
    return this.#snapshot;
  }

  /**
   * One object; until every object has come from the worker, a row a view's window
   * showed as `{ cells, metadata: { namespace, name } }` (what opens its detail).
   */
  get(namespace, name) {
    this.#askObjects();
    if (this.#objects) return this.#objects.get(`${namespace}/${name}`);
    for (const v of this.#views.values()) {
      for (const answer of v.answers.values()) {
        const row = answer.rows.find((r) => r.namespace === namespace && r.name === name);
        if (row) return { cells: row.cells, metadata: namespace ? { namespace, name } : { name } };
      }
    }
    return undefined;
  }

  /**
   * The worker's last answer for this object (`[]` before the first); asked again when
   * the watcher moved since (a `history` hook follows when the answer differs).
   */
  history(namespace, name) {
    const key = `${namespace}/${name}`;
    let h = this.#histories.get(key);
    if (!h) {
      h = { entries: EMPTY, askedAt: -1, inFlight: false, req: 0 };
      this.#histories.set(key, h);
      // A few objects' (a panel's, a reader's): the oldest go.
      if (this.#histories.size > 16) this.#histories.delete(this.#histories.keys().next().value);
    }
    if (this.#open && !h.inFlight && h.askedAt !== this.#version) {
      h.inFlight = true;
      h.askedAt = this.#version;
      h.req += 1;
      this.#conn.post({ t: 'history', sub: this.#sub, req: h.req, namespace, name });
    }
    return h.entries;
  }

  get size() {
    return this.#objects ? this.#objects.size : this.#size;
  }

  get version() {
    return this.#version;
  }

  status() {
    return this.#status;
  }

  columns() {
    return this.#columns;
  }

  createView(options) {
    const local = this.#local.createView(options);
    const id = this.#nextView++;
    const plain = options === undefined || options === null ? {} : { ...options };
    const v = { local, options: plain, first: 0, count: 0, answers: new Map(), newest: null, inFlight: false, again: false, req: 0, changed: null, current: null, answeredAt: 0, kept: null, screen: null, keepTimer: null, keptOnce: false };
    this.#views.set(id, v);
    if (this.#open) this.#conn.post({ t: 'view', sub: this.#sub, view: id, options: plain });
    if (this.#options.persist) this.#readKept(id, v);
    return id;
  }

  /**
   * The first screen an earlier page kept of this view shown this way, read from
   * IndexedDB by the page itself: drawn before the worker (which may be starting anew)
   * has restored the view, until its rows come.
   */
  #readKept(id, v) {
    const asked = JSON.stringify(v.options);
    keptScreen(this.#options, v.options).then((w) => {
      if (!w || this.#views.get(id) !== v || JSON.stringify(v.options) !== asked || v.newest?.length) return;
      v.kept = { ...w, pending: true, restored: true };
      v.changed?.();
    }, () => {});
  }

  /** Whether a kept screen may still stand: the worker has not said the view is anything but restored. */
  #keptHolds(v) {
    return v.kept !== null && !(v.newest?.length > 0) && (!this.#heard || this.#status.restored);
  }

  /** Keeps view `v`'s newest first screen soon (see KEEP_FIRST_MS). */
  #keepSoon(v, w) {
    v.screen = w;
    if (v.keepTimer !== null) return;
    v.keepTimer = setTimeout(() => {
      v.keepTimer = null;
      this.#keepScreen(v);
    }, v.keptOnce ? KEEP_EVERY_MS : KEEP_FIRST_MS);
  }

  #keepScreen(v) {
    const w = v.screen;
    if (!w) return;
    v.screen = null;
    v.keptOnce = true;
    keepScreen(this.#options, v.options, asKept(w)).catch(() => {});
  }

  /** The page goes: each view's first screen as it is now. */
  #keepScreens() {
    for (const v of this.#views.values()) {
      clearTimeout(v.keepTimer);
      v.keepTimer = null;
      this.#keepScreen(v);
    }
  }

  setView(id, options) {
    const v = this.#views.get(id);
    if (!v) return this.#local.setView(0, options);
    this.#local.setView(v.local, options);
    Object.assign(v.options, options ?? {});
    v.current = null;
    v.kept = null;
    v.screen = null;
    if (this.#open) this.#conn.post({ t: 'set', sub: this.#sub, view: id, options: { ...options } });
  }

  dropView(id) {
    const v = this.#views.get(id);
    if (!v) return;
    this.#views.delete(id);
    this.#local.dropView(v.local);
    if (this.#open) this.#conn.post({ t: 'dropView', sub: this.#sub, view: id });
  }

  /** `fn` is called when view `id`'s window answer changes; returns an unsubscribe function. */
  onViewChange(id, fn) {
    const v = this.#views.get(id);
    if (v) v.changed = fn;
    return () => {
      if (v) v.changed = null;
    };
  }

  /**
   * The last answer the worker gave for view `id` and this range (else for the range
   * asked for last: its own `first` says where its rows are), and, when it may be
   * behind, a fresh one asked for: a `change` follows when it differs. Before any
   * answer: no rows, `pending`.
   */
  window(id, first, count) {
    const v = this.#views.get(id);
    // Checks the arguments as the engine does (the same RangeError).
    const empty = this.#local.window(v ? v.local : 0, first, count);
    v.first = first;
    v.count = count;
    // This range's answer, else a part of one that holds it (a table whose height
    // settled asks for fewer rows than it first did).
    const range = `${first},${count}`;
    const exact = v.answers.get(range);
    const held = exact ? { range, window: exact } : within(v.answers, first, count);
    const answer = held?.window;
    // Asked again only when the answer may be behind: another range, a view changed,
    // work left, or ages a second old (after an update the worker sends the window
    // last asked for when it changed). A page drawing each answer that differs would
    // otherwise ask, draw and ask again every frame while the engine's store moves
    // (an initial list lands in hundreds of batches).
    if (v.current !== held?.range || answer?.pending || performance.now() - v.answeredAt >= REASK_MS) this.#ask(id, v);
    if (this.#keptHolds(v)) return within([['kept', v.kept]], first, count)?.window ?? v.kept;
    return answer ?? v.newest ?? { ...empty, length: this.#length, pending: true };
  }

  #ask(id, v) {
    if (!this.#open) return;
    if (v.inFlight) {
      v.again = true;
      return;
    }
    v.inFlight = true;
    v.again = false;
    v.req += 1;
    v.asked = `${v.first},${v.count}`;
    this.#conn.post({ t: 'window', sub: this.#sub, view: id, req: v.req, first: v.first, count: v.count });
  }

  /** A message from the worker for this watcher. */
  receive(m) {
    const hooks = this.#hooks;
    switch (m.t) {
      case 'status':
        this.#heard = true;
        this.#status = m.status;
        // The worker did not restore the view (nothing kept after all, another
        // cluster): a kept screen drawn meanwhile goes.
        for (const v of this.#views.values()) {
          if (v.kept !== null && !this.#keptHolds(v)) {
            v.kept = null;
            v.changed?.();
          }
        }
        this.#size = m.status.objects ?? this.#size;
        this.#running = m.running;
        if (!m.running && this.#open) this.#close();
        // The worker already holds counters back (at most every 250 ms): told at once,
        // the status lands in the frame of the rows that came with it.
        hooks.status?.(true);
        break;
      case 'columns':
        for (const v of this.#views.values()) v.current = null;
        this.#columns = Object.freeze(m.columns);
        hooks.columns?.(this.#columns);
        break;
      case 'tablesUnavailable':
        hooks.tablesUnavailable?.(m.reason);
        break;
      case 'synced':
        hooks.synced?.(m.objects, m.resourceVersion);
        break;
      case 'reset':
        for (const v of this.#views.values()) v.current = null;
        hooks.reset?.(m.reason);
        break;
      case 'error':
        hooks.error?.(m.error);
        break;
      case 'failed': {
        const error = { code: null, reason: 'WorkerFailed', message: m.message, retryable: false };
        this.#status = { ...this.#status, phase: 'stopped', connected: false, error };
        if (this.#open) this.#close();
        hooks.error?.(error);
        hooks.status?.(true);
        break;
      }
      case 'objects':
        this.#objects = new Map(m.objects.map((o) => [objectKey(o), o]));
        this.#version += 1;
        hooks.update?.(this.#version);
        break;
      case 'update': {
        this.#size = m.size;
        const changes = this.#objects && m.changes ? m.changes : [];
        for (const [type, o] of changes) {
          if (type === 'DELETED') this.#objects.delete(objectKey(o));
          else this.#objects.set(objectKey(o), o);
        }
        this.#version += 1;
        if (this.#wantsChanges) for (const [type, o] of changes) hooks.change?.(type, o);
        hooks.update?.(this.#version);
        // The worker sends each view's window after an update when it changed.
        break;
      }
      case 'history': {
        const key = `${m.namespace}/${m.name}`;
        const h = this.#histories.get(key);
        if (!h || m.req !== h.req) break;
        h.inFlight = false;
        const entries = Object.freeze(m.entries ?? []);
        const same = JSON.stringify(entries) === JSON.stringify(h.entries);
        if (!same) h.entries = entries;
        if (!same) hooks.history?.(m.namespace, m.name);
        break;
      }
      case 'window': {
        const v = this.#views.get(m.view);
        if (!v || m.req !== v.req) break;
        v.inFlight = false;
        if (m.window) {
          v.current = m.window.pending || v.again ? null : v.asked;
          v.answeredAt = performance.now();
          const before = v.answers.get(v.asked);
          v.answers.delete(v.asked);
          v.answers.set(v.asked, m.window);
          v.newest = m.window;
          // A few ranges (a table's, a reader's): the oldest go.
          while (v.answers.size > 4) v.answers.delete(v.answers.keys().next().value);
          this.#length = m.window.length;
          const same = before !== undefined && JSON.stringify(before) === JSON.stringify(m.window);
          if (v.again) this.#ask(m.view, v);
          const s = this.#status;
          if (this.#options.persist && m.window.first === 0 && m.window.rows.length > 0 && s.synced && !s.restored) this.#keepSoon(v, m.window);
          if (!same || v.kept !== null) v.changed?.();
          if (v.kept !== null && !this.#keptHolds(v)) v.kept = null;
        }
        break;
      }
      default:
        break;
    }
  }
}
