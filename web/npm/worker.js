// kubelive's shared engine: one engine per view for every page of the origin.
//
// Run as a SharedWorker (every tab of the origin connects to the one worker, each on
// its own port) or, where the browser has none, as a dedicated Worker (one per page,
// which is then its only port). `Watcher`s created with `shared: true` talk to it
// (index.js); nothing else should.
//
// Per view (watchers whose options ask the engine for the same thing: the wasm's
// `viewKey`) one `WatcherCore` runs (a persisted one, `persist: true`, starts from the
// view kept in IndexedDB and keeps saving it); each watcher subscribed to it has its own views
// (sort, filter, wide) of its rows. The bookkeeping (who watches what, the grace after
// the last watcher leaves, pages gone silent) is the wasm's `HubCore`; this file
// carries messages. Every message is plain, structured-cloneable data.
//
// page -> worker: { t: 'init', wasm? } first; then { t: 'open', sub, options, objects },
// { t: 'close', sub }, { t: 'objects', sub } (send every object, then each change),
// { t: 'view', sub, view, options }, { t: 'set', sub, view, options },
// { t: 'window', sub, view, req, first, count }, { t: 'dropView', sub, view },
// { t: 'history', sub, req, namespace, name },
// { t: 'beat' } (every 2 s), { t: 'bye' } (the page leaves; it may come back from the
// back/forward cache).
// worker -> page: { t: 'status', sub, status, urgent, running }, { t: 'columns', sub,
// columns }, { t: 'tablesUnavailable', sub, reason }, { t: 'synced', sub, objects,
// resourceVersion }, { t: 'reset', sub, reason }, { t: 'error', sub, error },
// { t: 'update', sub, version, size, changes? } (the rows may have changed), { t:
// 'objects', sub, objects, version, size }, { t: 'window', sub, view, req, window,
// error? } (an answer, or after an update the window last asked for when it changed),
// { t: 'history', sub, req, namespace, name, entries }, { t: 'failed', sub, message } (the watcher could not be opened;
// sub null: none can), { t: 'reopen' } (the worker had forgotten the page: open again).

import initWasm, { WatcherCore, HubCore, viewKey, hubTickMs } from './kubelive_watcher.js';

let hub = null;
let loading = null;
/** Ports by id: { post(message) }. */
const ports = new Map();
let nextPort = 1;
/** Engines by view key: { core, objects: Set of 'port/sub' wanting objects, changes: [] }. */
const engines = new Map();
/**
 * Per subscription ('port/sub'): its key and its views (page view id -> { id: core view
 * id, options: the view's options as set so far }).
 */
const subs = new Map();

const id = (port, sub) => `${port}/${sub}`;

function load(wasm) {
  if (!loading) {
    loading = initWasm(wasm ? { module_or_path: wasm } : undefined).then(() => {
      hub = new HubCore();
      setInterval(tick, hubTickMs());
    });
  }
  return loading;
}

function tick() {
  dropOldSpares();
  for (const d of hub.tick()) {
    if (d.drop !== undefined) forgetPort(d.drop);
    if (d.stop !== undefined) stopEngine(d.stop);
  }
  pauseUnwatched();
}

/**
 * Views no page shows (in their grace) end their requests at once, keeping what they
 * hold: a page that joins one in its grace has it watch on from its version. A browser
 * may suspend this worker while its only pages are in the back/forward cache, and its
 * grace would then never end, its watch open for nobody.
 */
function pauseUnwatched() {
  for (const [key, engine] of engines) {
    if (hub.subscribers(key).length === 0) engine.core.pause();
  }
}

/** Forgets what `port` had open (the port itself stays: a page can come back). */
function forgetPort(port) {
  for (const [k, s] of subs) {
    if (s.port === port) dropSub(k, s);
  }
}

function stopEngine(key) {
  const engine = engines.get(key);
  if (!engine) return;
  engines.delete(key);
  engine.core.stop();
  if (engine.timer !== null) clearTimeout(engine.timer);
  engine.core.free();
}

/** Forgets a subscription's views and object feed (the hub already let it go). */
function dropSub(k, s) {
  subs.delete(k);
  const engine = engines.get(s.key);
  if (!engine) return;
  engine.objects.delete(k);
  for (const v of s.views.values()) spare(engine, v);
}

/**
 * A view its page let go is kept a while (SPARE_MS; a few per engine), kept current
 * with the rest: a reloading page asking for the same view (the same sort, filter and
 * width) gets it built, where a new one would first sort every row again (at 100,000
 * rows, most of a reload's time to its first rows).
 */
const SPARE_MS = 15000;
const SPARES = 4;

const viewShape = (o) => JSON.stringify([o?.sort ?? '', o?.filter ?? '', Boolean(o?.wide)]);

function spare(engine, v) {
  engine.spares.push({ ...v, shape: viewShape(v.options), at: performance.now() });
  while (engine.spares.length > SPARES) engine.core.dropView(engine.spares.shift().id);
}

/** A new view of `engine` with `options`: a spare one of that shape, else made. */
function takeView(engine, options) {
  const shape = viewShape(options);
  const i = engine.spares.findIndex((v) => v.shape === shape);
  // The options are checked (the same errors as a new view's) by making none: a spare
  // is only ever of options once accepted, and these equal them.
  const id = i >= 0 ? engine.spares.splice(i, 1)[0].id : engine.core.createView(options);
  return { id, options: { ...options }, range: null, req: 0, sent: '' };
}

/** Drops spare views kept past SPARE_MS. */
function dropOldSpares() {
  const old = performance.now() - SPARE_MS;
  for (const engine of engines.values()) {
    while (engine.spares.length > 0 && engine.spares[0].at < old) engine.core.dropView(engine.spares.shift().id);
  }
}

/** Sends `message` (with `sub` set) to every subscription of view `key`. */
function fanOut(key, message, each) {
  for (const [port, sub] of hub.subscribers(key)) {
    const p = ports.get(port);
    if (!p) continue;
    const extra = each ? each(id(port, sub)) : null;
    p.post({ ...message, ...extra, sub });
  }
}

/**
 * How often, at most, an engine tells its pages that its rows moved (ms): while it
 * syncs, a progress report (an initial list lands in hundreds of batches, and each
 * message costs every page a task, a window and a frame); once synced, about a frame.
 * Its counters (a status that is not urgent) at most every STATUS_EVERY_MS, with an
 * update when one is due: the pages show both in one frame and take the status as it
 * comes. Urgent statuses and every other message go at once, after what was held
 * back, so that pages see them in order.
 */
const UPDATE_EVERY_MS = { syncing: 250, synced: 16 };
const STATUS_EVERY_MS = 250;

function startEngine(key, options) {
  const engine = {
    core: null, objects: new Set(), changes: [], version: 0, spares: [],
    moved: false, counted: false, state: '', timer: null, updatedAt: -Infinity, countedAt: -Infinity,
  };
  const flush = (urgent) => flushEngine(key, engine, urgent);
  const soon = () => {
    if (engine.timer !== null) return;
    const every = engine.core?.status().synced ? UPDATE_EVERY_MS.synced : UPDATE_EVERY_MS.syncing;
    const due = Math.min(
      engine.moved ? engine.updatedAt + every : Infinity,
      engine.counted ? engine.countedAt + STATUS_EVERY_MS : Infinity,
    );
    if (due === Infinity) return;
    engine.timer = setTimeout(() => {
      engine.timer = null;
      flushEngine(key, engine, false, true);
      soon();
    }, Math.max(0, due - performance.now()));
  };
  const atOnce = (message) => {
    flush();
    fanOut(key, message);
  };
  const hooks = {
    change: (type, object) => {
      if (engine.objects.size > 0) engine.changes.push([type, object]);
    },
    update: (version) => {
      engine.version = version;
      engine.moved = true;
      soon();
    },
    synced: (objects, resourceVersion) => atOnce({ t: 'synced', objects, resourceVersion }),
    reset: (reason) => atOnce({ t: 'reset', reason }),
    error: (error) => atOnce({ t: 'error', error }),
    columns: (columns) => atOnce({ t: 'columns', columns }),
    tablesUnavailable: (reason) => atOnce({ t: 'tablesUnavailable', reason }),
    status: (urgent) => {
      if (!engine.core) return;
      engine.counted = true;
      // Urgent for the pages when what they show changes state; a connection opened
      // for each LIST page, or the page number, waits for the counters' turn.
      if (urgent && stateOf(engine.core.status()) !== engine.state) flush(true);
      else soon();
    },
  };
  engine.core = new WatcherCore(options, hooks);
  engines.set(key, engine);
  engine.core.start();
  return engine;
}

/** What of a status a page shows as a state (its counters and connection aside). */
function stateOf(status) {
  const e = status.error;
  return `${status.phase} ${status.synced} ${status.restored} ${e ? `${e.code} ${e.reason} ${e.message}` : ''} ${status.tablesUnavailable ?? ''}`;
}

/**
 * Sends what `engine` held back: its rows moved (with the changes for those who want
 * them), then its status. `timed`: from its timer, which sends a status only when its
 * own time has come (else it waits for its next turn).
 */
function flushEngine(key, engine, urgent = false, timed = false) {
  if (!timed && engine.timer !== null) {
    clearTimeout(engine.timer);
    engine.timer = null;
  }
  const now = performance.now();
  if (engine.moved) {
    engine.moved = false;
    engine.updatedAt = now;
    const changes = engine.changes;
    engine.changes = [];
    const { version } = engine;
    const size = engine.core.size;
    fanOut(key, { t: 'update', version, size }, (k) => (engine.objects.has(k) ? { changes } : null));
    pushWindows(key, engine);
  }
  if (engine.counted && (!timed || now >= engine.countedAt + STATUS_EVERY_MS)) {
    engine.counted = false;
    engine.countedAt = now;
    const status = engine.core.status();
    engine.state = stateOf(status);
    fanOut(key, { t: 'status', status, urgent, running: engine.core.running });
  }
}

/**
 * After an update, each view's window as its page last asked for it, to the page when
 * it differs from the one it has: a page asks for a window when it draws another range
 * (or when its answer is a second old, for the ages), not after every update (a round
 * trip for each, mostly to hear that the rows in view did not change).
 */
function pushWindows(key, engine) {
  for (const [port, sub] of hub.subscribers(key)) {
    const s = subs.get(id(port, sub));
    const p = ports.get(port);
    if (!s || !p) continue;
    for (const [view, v] of s.views) {
      if (!v.range) continue;
      let window;
      try {
        window = engine.core.window(v.id, v.range[0], v.range[1]);
      } catch (_) {
        continue;
      }
      const text = JSON.stringify(window);
      if (text === v.sent) continue;
      v.sent = text;
      p.post({ t: 'window', sub, view, req: v.req, window });
    }
  }
}

/** A joiner's view of the engine as it is: what the events so far would have told. */
function catchUp(p, sub, engine) {
  const core = engine.core;
  const status = core.status();
  p.post({ t: 'status', sub, status, urgent: true, running: core.running });
  const columns = core.columns();
  if (columns) p.post({ t: 'columns', sub, columns });
  if (status.tablesUnavailable) p.post({ t: 'tablesUnavailable', sub, reason: status.tablesUnavailable });
  if (status.synced) {
    p.post({ t: 'update', sub, version: core.version, size: core.size });
    p.post({ t: 'synced', sub, objects: core.size, resourceVersion: status.resourceVersion ?? '' });
  }
}

function handle(port, m) {
  const p = ports.get(port);
  if (!p || !m || typeof m !== 'object') return;
  if (m.t === 'bye') {
    // The worker may end with this page (its last): persisted views only this page
    // watched are saved now. One another page watches too goes on (and is saved as it
    // goes): saving it now would hold up this page's reload, whose first answers wait
    // behind the save.
    for (const s of subs.values()) {
      if (s.port !== port) continue;
      const others = hub.subscribers(s.key).some(([p]) => p !== port);
      if (!others) engines.get(s.key)?.core.saveNow();
    }
    hub.disconnect(port);
    forgetPort(port);
    pauseUnwatched();
    return;
  }
  if (!hub.heard(port)) {
    // Back after a goodbye (from the back/forward cache) or dropped as silent (a page
    // frozen in the background): connect it again and have it open its watchers again.
    hub.connect(port);
    forgetPort(port);
    p.post({ t: 'reopen' });
  }
  const k = id(port, m.sub);
  const s = subs.get(k);
  const engine = s && engines.get(s.key);
  try {
    switch (m.t) {
      case 'beat':
        break;
      case 'open': {
        if (s) break;
        const key = viewKey(m.options);
        const opened = hub.open(port, m.sub, key);
        subs.set(k, { port, key, views: new Map() });
        const e = opened === 'start' ? startEngine(key, m.options) : engines.get(key);
        if (opened !== 'start') {
          // Paused in its grace: watched on. Stopped by a failure retrying cannot fix:
          // a watcher that starts again retries, as a page's own engine does.
          e.core.resume();
          if (!e.core.running) e.core.start();
          catchUp(p, m.sub, e);
        }
        break;
      }
      case 'close':
        hub.close(port, m.sub);
        if (s) dropSub(k, s);
        pauseUnwatched();
        break;
      case 'objects':
        if (!engine || engine.objects.has(k)) break;
        // What was held back goes to the others first: the snapshot already holds it.
        flushEngine(s.key, engine);
        engine.objects.add(k);
        engine.core.wantChanges();
        p.post({ t: 'objects', sub: m.sub, objects: engine.core.snapshot(), version: engine.core.version, size: engine.core.size });
        break;
      case 'view':
        if (!engine) break;
        if (s.views.has(m.view)) engine.core.dropView(s.views.get(m.view).id);
        s.views.set(m.view, takeView(engine, m.options));
        break;
      case 'set':
        if (engine && s.views.has(m.view)) {
          const v = s.views.get(m.view);
          engine.core.setView(v.id, m.options);
          Object.assign(v.options, m.options);
        }
        break;
      case 'dropView':
        if (engine && s.views.has(m.view)) {
          engine.core.dropView(s.views.get(m.view).id);
          s.views.delete(m.view);
        }
        break;
      case 'window': {
        if (!engine || !s.views.has(m.view)) break;
        const v = s.views.get(m.view);
        v.range = [m.first, m.count];
        v.req = m.req;
        v.sent = '';
        const window = engine.core.window(v.id, m.first, m.count);
        v.sent = JSON.stringify(window);
        p.post({ t: 'window', sub: m.sub, view: m.view, req: m.req, window });
        break;
      }
      case 'history':
        if (!engine) break;
        p.post({ t: 'history', sub: m.sub, req: m.req, namespace: m.namespace, name: m.name, entries: engine.core.history(m.namespace, m.name) });
        break;
      default:
        break;
    }
  } catch (e) {
    const message = `${e?.message ?? e}`;
    if (m.t === 'open') p.post({ t: 'failed', sub: m.sub, message });
    else if (m.t === 'window') p.post({ t: 'window', sub: m.sub, view: m.view, req: m.req, error: message });
    else console.error('kubelive worker:', e);
  }
}

/** A new page on `target` (a MessagePort, or the dedicated worker's own scope). */
function attach(target) {
  const port = nextPort++;
  const queue = [];
  let ready = false;
  ports.set(port, { post: (message) => target.postMessage(message) });
  target.onmessage = (e) => {
    const m = e.data;
    if (ready) return handle(port, m);
    if (m?.t === 'init') {
      load(m.wasm).then(() => {
        hub.connect(port);
        ready = true;
        for (const q of queue.splice(0)) handle(port, q);
      }, (err) => target.postMessage({ t: 'failed', sub: null, message: `cannot load kubelive's wasm in the worker: ${err?.message ?? err}` }));
    } else {
      queue.push(m);
    }
  };
}

if (typeof self.SharedWorkerGlobalScope !== 'undefined' && self instanceof self.SharedWorkerGlobalScope) {
  self.onconnect = (e) => attach(e.ports[0]);
} else {
  attach(self);
}
