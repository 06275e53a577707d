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
// { t: 'beat' } (every 2 s), { t: 'bye' } (the page leaves; it may come back from the
// back/forward cache).
// worker -> page: { t: 'status', sub, status, urgent, running }, { t: 'columns', sub,
// columns }, { t: 'tablesUnavailable', sub, reason }, { t: 'synced', sub, objects,
// resourceVersion }, { t: 'reset', sub, reason }, { t: 'error', sub, error },
// { t: 'update', sub, version, size, changes? } (the rows may have changed: windows
// too), { t: 'objects', sub, objects, version, size }, { t: 'window', sub, view, req,
// window, error? }, { t: 'failed', sub, message } (the watcher could not be opened;
// sub null: none can), { t: 'reopen' } (the worker had forgotten the page: open again).

import initWasm, { WatcherCore, HubCore, viewKey, hubTickMs } from './kubelive_watcher.js';

let hub = null;
let loading = null;
/** Ports by id: { post(message) }. */
const ports = new Map();
let nextPort = 1;
/** Engines by view key: { core, objects: Set of 'port/sub' wanting objects, changes: [] }. */
const engines = new Map();
/** Per subscription ('port/sub'): its key and its views (page view id -> core view id). */
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
  for (const d of hub.tick()) {
    if (d.drop !== undefined) forgetPort(d.drop);
    if (d.stop !== undefined) stopEngine(d.stop);
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
  engine.core.free();
}

/** Forgets a subscription's views and object feed (the hub already let it go). */
function dropSub(k, s) {
  subs.delete(k);
  const engine = engines.get(s.key);
  if (!engine) return;
  engine.objects.delete(k);
  for (const coreView of s.views.values()) engine.core.dropView(coreView);
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

function startEngine(key, options) {
  const engine = { core: null, objects: new Set(), changes: [], version: 0 };
  const hooks = {
    change: (type, object) => engine.changes.push([type, object]),
    update: (version) => {
      engine.version = version;
      const changes = engine.changes;
      engine.changes = [];
      const size = engine.core.size;
      fanOut(key, { t: 'update', version, size }, (k) => (engine.objects.has(k) ? { changes } : null));
    },
    synced: (objects, resourceVersion) => fanOut(key, { t: 'synced', objects, resourceVersion }),
    reset: (reason) => fanOut(key, { t: 'reset', reason }),
    error: (error) => fanOut(key, { t: 'error', error }),
    columns: (columns) => fanOut(key, { t: 'columns', columns }),
    tablesUnavailable: (reason) => fanOut(key, { t: 'tablesUnavailable', reason }),
    status: (urgent) => {
      if (!engine.core) return;
      fanOut(key, { t: 'status', status: engine.core.status(), urgent, running: engine.core.running });
    },
  };
  engine.core = new WatcherCore(options, hooks);
  engines.set(key, engine);
  engine.core.start();
  return engine;
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
    // The worker may end with this page (its last): persisted views are saved now.
    for (const s of subs.values()) if (s.port === port) engines.get(s.key)?.core.saveNow();
    hub.disconnect(port);
    forgetPort(port);
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
          // Stopped by a failure retrying cannot fix: a watcher that starts again
          // retries, as a page's own engine does.
          if (!e.core.running) e.core.start();
          catchUp(p, m.sub, e);
        }
        break;
      }
      case 'close':
        hub.close(port, m.sub);
        if (s) dropSub(k, s);
        break;
      case 'objects':
        if (!engine || engine.objects.has(k)) break;
        engine.objects.add(k);
        engine.core.wantChanges();
        p.post({ t: 'objects', sub: m.sub, objects: engine.core.snapshot(), version: engine.core.version, size: engine.core.size });
        break;
      case 'view':
        if (!engine) break;
        if (s.views.has(m.view)) engine.core.dropView(s.views.get(m.view));
        s.views.set(m.view, engine.core.createView(m.options));
        break;
      case 'set':
        if (engine && s.views.has(m.view)) engine.core.setView(s.views.get(m.view), m.options);
        break;
      case 'dropView':
        if (engine && s.views.has(m.view)) {
          engine.core.dropView(s.views.get(m.view));
          s.views.delete(m.view);
        }
        break;
      case 'window': {
        if (!engine || !s.views.has(m.view)) break;
        const window = engine.core.window(s.views.get(m.view), m.first, m.count);
        p.post({ t: 'window', sub: m.sub, view: m.view, req: m.req, window });
        break;
      }
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
