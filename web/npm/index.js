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

import initWasm, { WatcherCore, humanDuration } from './kubelive_watcher.js';

export { humanDuration };

let loading = null;
let loaded = false;

/**
 * Loads and instantiates the wasm module (once: later calls return the same promise).
 * By default it is fetched next to this file; pass a URL (or a Response, bytes, or a
 * compiled WebAssembly.Module) to load it from elsewhere.
 */
export default function init(module) {
  if (!loading) {
    const input = module === undefined ? undefined : { module_or_path: module };
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
    };
    this.#core = new WatcherCore(options, hooks);
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
    return new View(this, this.#core, this.#core.createView(options));
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
    for (const type of ['update', 'columns', 'tablesUnavailable', 'reset']) watcher.addEventListener(type, changed);
    this.#off = () => {
      for (const type of ['update', 'columns', 'tablesUnavailable', 'reset']) watcher.removeEventListener(type, changed);
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
