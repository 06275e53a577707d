// The Watcher's contract (issue 14), from the npm package in dist/npm through the real
// kubectl proxy, against a churning sim whose user may list and watch only in ns-0 and
// ns-1 (pods in all namespaces are a 403) and whose watch cache keeps 8 s of history:
// options refused with clean errors; a started watcher nobody references survives
// forced garbage collection; a rejected selector, a 403 and a 404 end in `failed` with
// their codes and stop requesting; unsubscribe and the EventTarget events; stop() +
// start() resumes from its version with the right deletes, or after the history
// expired relists with a `reset` and the deletes; snapshot identity; free();
// history(namespace, name): an object's versions since the sync are the ones the sim
// wrote (a watch of our own from the watcher's version).
import { ARTIFACTS, check, done, getJson, until } from './lib.mjs';
import { converges, keys, launchWithGc, packagePage } from './watcherlib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const NS0 = '/api/v1/namespaces/ns-0/pods';
const WINDOW_MS = 8000; // the sim's --watch-cache-window
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** In the page: `{ rv, objects }` of `window[name].w` while synced and watching. */
const reader = (name) => new Function(`
  const w = window[${JSON.stringify(name)}].w;
  const s = w.status();
  if (!s.synced || s.phase !== 'watching') return null;
  return { rv: s.resourceVersion, objects: w.snapshot().map((o) => \`\${o.metadata.namespace ?? ''}/\${o.metadata.name}@\${o.metadata.resourceVersion}\`) };
`);

const browser = await launchWithGc();
try {
  await options();
  await lifetime();
  await failures();
  await subscriptions();
  await restarts();
  await snapshots();
  await freeing();
  await history();
} finally {
  await browser.close();
}
done('watcher');

async function options() {
  console.log('options');
  const { page, context } = await packagePage(browser, BASE);
  const got = await page.evaluate(() => {
    const attempt = (o) => {
      try {
        new window.kl.Watcher(o);
        return { text: 'no error' };
      } catch (e) {
        return { name: e.constructor.name, text: String(e) };
      }
    };
    return {
      typo: attempt({ path: '/api/v1/pods', labelselector: 'app=web' }),
      negative: attempt({ path: '/api/v1/pods', pageSize: -1 }),
      fraction: attempt({ path: '/api/v1/pods', pageSize: 1.5 }),
      type: attempt({ path: '/api/v1/pods', streamingList: 'yes' }),
      missing: attempt({ namespace: 'ns-0' }),
      path: attempt({ path: 'pods' }),
      table: attempt({ path: '/api/v1/pods', format: 'table' }),
      include: attempt({ path: '/api/v1/pods', includeObject: 'Object' }),
      includeNone: attempt({ path: '/api/v1/pods', format: 'table', includeObject: 'None' }),
      string: attempt('/api/v1/pods'),
      nothing: attempt(undefined),
      good: attempt({ path: '/api/v1/pods', namespace: undefined, pageSize: 0, format: 'objects' }),
    };
  });
  const is = (r, name, text) => r.name === name && r.text === `${name}: ${text}`;
  check(is(got.typo, 'TypeError', 'unknown option labelselector; did you mean labelSelector?'), `a misspelt option is named with what was meant: ${got.typo.text}`);
  check(is(got.negative, 'RangeError', 'option pageSize must be a whole number from 0 (one unpaginated list) to 4294967295, got -1'), `pageSize -1 is a RangeError naming it: ${got.negative.text}`);
  check(got.fraction.name === 'RangeError', `pageSize 1.5 is a RangeError: ${got.fraction.text}`);
  check(is(got.type, 'TypeError', 'option streamingList must be a boolean, got string'), `a wrong type is a TypeError naming the option: ${got.type.text}`);
  check(got.missing.name === 'TypeError' && got.missing.text.startsWith('TypeError: missing option path:'), `a missing path is said: ${got.missing.text}`);
  check(got.path.name === 'RangeError' && got.path.text.startsWith('RangeError: option path: "pods" is not a collection path'), `a bad path is said: ${got.path.text}`);
  check(got.table.text === 'no error', `format 'table' is taken: ${got.table.text}`);
  check(is(got.include, 'TypeError', "option includeObject needs format: 'table' (objects are always whole)"), `includeObject without table mode is named: ${got.include.text}`);
  check(is(got.includeNone, 'RangeError', `option includeObject must be 'Metadata' or 'Object', got "None"`), `includeObject None is refused: ${got.includeNone.text}`);
  check(got.string.name === 'TypeError' && got.nothing.name === 'TypeError', `options that are no object are a TypeError: ${got.string.text}; ${got.nothing.text}`);
  check(got.good.text === 'no error', `good options (undefined for an absent one) are taken: ${got.good.text}`);
  check(![got.typo, got.negative, got.missing].some((r) => r.text.includes('Error: Error')), 'no "Error: Error:" anywhere');
  await context.close();

  const early = await packagePage(browser, BASE, { ready: false });
  const before = await early.page.evaluate(() => {
    try {
      new window.kl.Watcher({ path: '/api/v1/pods' });
      return 'no error';
    } catch (e) {
      return String(e);
    }
  });
  check(before.includes('await init()'), `a Watcher before init() says what to do: ${before}`);
  const exported = await early.page.evaluate(() => Object.keys(window.kl).sort().join(','));
  check(exported === 'View,Watcher,default,forgetSavedViews,humanDuration,init', `the package exports Watcher, View, forgetSavedViews, humanDuration, init and default only (${exported})`);
  await early.context.close();
}

async function lifetime() {
  console.log('lifetime');
  const { page, context, problems } = await packagePage(browser, BASE);
  await page.evaluate((path) => {
    window.seen = { changes: 0, phases: [], synced: false };
    // Started, and no reference kept: only the package keeps it alive.
    const started = new window.kl.Watcher({ path });
    started.onChange(() => { window.seen.changes += 1; });
    started.onStatus((s) => window.seen.phases.push(s.phase));
    started.onSynced(() => { window.seen.synced = true; });
    started.start();
    window.startedRef = new WeakRef(started);
    // Started and stopped, no reference kept: garbage like any object.
    const stopped = new window.kl.Watcher({ path });
    stopped.start();
    stopped.stop();
    window.stoppedRef = new WeakRef(stopped);
  }, NS0);
  await until('the unreferenced watcher to sync', () => page.evaluate(() => window.seen.synced), 30000);
  for (let i = 0; i < 6; i++) {
    await page.evaluate(() => window.gc());
    await sleep(250);
  }
  const refs = await page.evaluate(() => ({
    started: window.startedRef.deref() !== undefined,
    stopped: window.stoppedRef.deref() !== undefined,
  }));
  check(refs.started, 'after forced garbage collection the started watcher is still there');
  check(!refs.stopped, 'a stopped watcher nobody references was collected (nothing holds it)');
  const at = await page.evaluate(() => window.seen.changes);
  let more = false;
  try {
    more = await until('changes after garbage collection', () => page.evaluate((n) => window.seen.changes >= n + 3, at), 30000);
  } catch (e) {
    console.log(`  ${e.message}`);
  }
  check(more, 'the unreferenced watcher keeps delivering changes after garbage collection');
  const phases = await page.evaluate(() => window.seen.phases);
  check(!phases.includes('stopped'), `it never stopped (${phases.join(' → ')})`);
  const aborted = problems.failed.filter((f) => f.includes('watch=true'));
  check(aborted.length === 0, `none of its watches was aborted (${aborted.join('; ')})`);
  await context.close();
}

async function failures() {
  console.log('failures');
  const { page, context, problems } = await packagePage(browser, BASE);
  await page.evaluate(() => {
    window.failing = {};
    const watch = (name, options) => {
      const seen = { errors: [], statuses: [] };
      const w = new window.kl.Watcher(options);
      w.onError((e) => seen.errors.push(e));
      w.onStatus((s) => seen.statuses.push({ phase: s.phase, error: s.error }));
      w.start();
      window.failing[name] = { w, seen };
    };
    watch('selector', { path: '/api/v1/namespaces/ns-0/pods', fieldSelector: 'status.hostIP=10.0.0.1' });
    watch('forbidden', { path: '/api/v1/pods' });
    watch('missing', { path: '/api/v1/namespaces/ns-0/nothings' });
    watch('retrying', { path: '/api/v1/pods', pageSize: 7, retryOnFailure: true });
    // Nothing listens there: a transient failure without a server answer.
    watch('unreachable', { path: '/api/v1/pods', baseUrl: 'http://127.0.0.1:9' });
  });
  const sent = {
    selector: (u) => u.includes('fieldSelector=status.hostIP'),
    forbidden: (u) => u.startsWith(`${BASE}/api/v1/pods?limit=500`),
    missing: (u) => u.includes('/nothings'),
    retrying: (u) => u.includes('/api/v1/pods?limit=7'),
  };
  const count = (name) => problems.requests.filter((r) => sent[name](r.url)).length;
  // The engine retries a failure of this kind no faster than every 10 s: once the
  // retrying watcher has asked twice, the others had as long to ask again.
  let retried = false;
  try {
    retried = await until('the retrying watcher to ask again', () => count('retrying') >= 2, 40000, 250);
  } catch (e) {
    console.log(`  ${e.message}`);
  }
  check(retried, `with retryOnFailure the watcher retries (${count('retrying')} requests)`);
  const state = await page.evaluate(() => Object.fromEntries(Object.entries(window.failing).map(([k, { w, seen }]) => [k, {
    status: w.status(),
    errors: seen.errors,
    last: seen.statuses.at(-1),
    running: !['failed', 'stopped'].includes(w.status().phase),
  }])));
  const expect = {
    selector: [400, 'BadRequest', 'field label not supported: status.hostIP'],
    forbidden: [403, 'Forbidden', 'pods is forbidden: User "jane@example.com" cannot list resource "pods"'],
    missing: [404, 'NotFound', 'the server could not find the requested resource'],
  };
  for (const [name, [code, reason, words]] of Object.entries(expect)) {
    const { status, errors, last } = state[name];
    const e = status.error;
    check(status.phase === 'failed' && last?.phase === 'failed', `${name}: phase failed (${status.phase}; last status event ${last?.phase})`);
    check(e && e.code === code && e.reason === reason && e.retryable === false && e.message.includes(words),
      `${name}: error ${JSON.stringify(e)}`);
    check(errors.length === 1 && errors[0].code === code && errors[0].retryable === false, `${name}: one error event (${JSON.stringify(errors)})`);
    check(count(name) === 1, `${name}: asked once, never again (${count(name)} requests)`);
  }
  const u = state.unreachable;
  check(u.running && u.status.error?.code === null && u.status.error?.retryable === true && u.errors.length >= 2,
    `unreachable: still running (${u.status.phase}), retrying by itself (${u.errors.length} error events), the error retryable with no code (${JSON.stringify(u.status.error)})`);
  const r = state.retrying;
  check(r.running && r.status.error?.code === 403 && r.status.error?.retryable === false,
    `retrying: still running (${r.status.phase}) with the 403 not retryable (${JSON.stringify(r.status.error)})`);

  // start() tries a failed watcher again, on the page's word.
  await page.evaluate(() => window.failing.forbidden.w.start());
  await until('the failed watcher to ask again on start()', () => count('forbidden') === 2, 10000);
  const again = await until('it to fail again', () => page.evaluate(() => {
    const s = window.failing.forbidden.w.status();
    return s.phase === 'failed' && s;
  }), 10000);
  check(again.error.code === 403, 'start() after a failure asks once more and fails the same way');
  await page.evaluate(() => Object.values(window.failing).forEach(({ w }) => w.free()));
  await context.close();
}

async function subscriptions() {
  console.log('subscriptions');
  const { page, context } = await packagePage(browser, BASE);
  await page.evaluate((path) => {
    const w = new window.kl.Watcher({ path });
    const sub = { w, viaOn: 0, viaTarget: 0, unsubscribedAt: null, events: {}, notCustom: 0, statuses: [], updates: 0 };
    window.sub = sub;
    const unsubscribe = w.onChange(() => {
      sub.viaOn += 1;
      if (sub.viaOn === 2) {
        unsubscribe();
        sub.unsubscribedAt = sub.viaTarget;
      }
    });
    w.addEventListener('change', () => { sub.viaTarget += 1; });
    for (const type of ['change', 'update', 'status', 'synced', 'error', 'reset']) {
      w.addEventListener(type, (e) => {
        sub.events[type] = (sub.events[type] ?? 0) + 1;
        if (!(e instanceof CustomEvent) || e.detail === undefined) sub.notCustom += 1;
      });
    }
    w.onStatus((s) => sub.statuses.push({ phase: s.phase, synced: s.synced, counters: s.added + s.modified + s.deleted + s.bookmarks, rv: s.resourceVersion }));
    const stopUpdates = w.subscribe(() => {
      sub.updates += 1;
      if (sub.updates === 3) stopUpdates();
    });
    w.start();
  }, NS0);
  await until('changes after the unsubscribe', () => page.evaluate(() => window.sub.unsubscribedAt !== null && window.sub.viaTarget >= window.sub.unsubscribedAt + 8), 30000);
  await until('a few updates', () => page.evaluate(() => (window.sub.events.update ?? 0) >= 6), 30000);
  // The list's changes alone can meet the waits above before the first status event for
  // counters (they are throttled to one per 250 ms); the sim churns, so one comes. The
  // check below says whether it did.
  await until('a status event for counters while watching', () => page.evaluate(() => {
    const live = window.sub.statuses.filter((s) => s.phase === 'watching' && s.synced);
    return live.some((s, i) => i > 0 && s.counters !== live[i - 1].counters);
  }), 30000).catch(() => {});
  const sub = await page.evaluate(() => ({ ...window.sub, w: undefined, isTarget: window.sub.w instanceof EventTarget }));
  check(sub.viaOn === 2, `onChange's unsubscribe stops its callback (${sub.viaOn} calls; ${sub.viaTarget} changes delivered)`);
  check(sub.updates === 3, `subscribe's unsubscribe stops its callback (${sub.updates} calls; ${sub.events.update} updates)`);
  check(sub.isTarget, 'a Watcher is an EventTarget');
  for (const type of ['change', 'update', 'status', 'synced']) {
    check((sub.events[type] ?? 0) > 0, `the ${type} event fires (${sub.events[type] ?? 0})`);
  }
  check(sub.notCustom === 0, 'every event is a CustomEvent with a detail');
  // Status events come for counters too, not only for phase changes.
  const live = sub.statuses.filter((s) => s.phase === 'watching' && s.synced);
  const counted = live.some((s, i) => i > 0 && s.counters !== live[i - 1].counters);
  check(counted, `status events tell counters while the phase stays (${live.length} while watching)`);
  await page.evaluate(() => window.sub.w.free());
  await context.close();
}

async function restarts() {
  console.log('restarts');
  const { page, context, problems } = await packagePage(browser, BASE);
  await page.evaluate((path) => {
    const w = new window.kl.Watcher({ path });
    window.r = { w, changes: [], resets: [], phases: [] };
    w.onChange(({ type, object }) => window.r.changes.push({ type, key: `${object.metadata.namespace}/${object.metadata.name}` }));
    w.onReset(({ reason }) => window.r.resets.push(reason));
    w.onStatus((s) => window.r.phases.push(s.phase));
    w.start();
  }, NS0);
  const read = reader('r');

  for (const [what, pauseMs] of [['resume', 0], ['relist', WINDOW_MS + 4000]]) {
    await until('the watcher to sync', () => page.evaluate(read), 30000);
    const held = await page.evaluate(() => {
      const w = window.r.w;
      w.stop();
      window.r.mark = window.r.changes.length;
      window.r.resets = [];
      return {
        rv: w.status().resourceVersion,
        phase: w.status().phase,
        told: window.r.phases.at(-1),
        names: w.snapshot().map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      };
    });
    check(held.phase === 'stopped' && held.told === 'stopped', `${what}: stop() stops and says so (${held.phase}, told ${held.told})`);
    // Wait for the server to delete something the watcher holds (the sim churns);
    // for the relist, also until its history has moved past the watcher's version.
    const started = Date.now();
    let vanished = [];
    // (The resume must come well within the watch cache's window: 5 s of 8.)
    while (Date.now() - started < Math.max(pauseMs, 5000)) {
      const list = await getJson(`${BASE}${NS0}`);
      const now = new Set(list.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
      vanished = held.names.filter((n) => !now.has(n));
      if (vanished.length > 0 && Date.now() - started >= pauseMs) break;
      await sleep(200);
    }
    check(vanished.length > 0, `${what}: pods held at the stop were deleted on the server meanwhile (${vanished.length})`);
    const t0 = Date.now();
    await page.evaluate(() => window.r.w.start());
    // Until it moved past the version it stopped at (at that version, the state held
    // is the truth: converging there would prove nothing).
    await until('the watcher to move past its stop', () => page.evaluate((rv) => {
      const s = window.r.w.status();
      return s.synced && s.phase === 'watching' && s.resourceVersion !== rv;
    }, held.rv), 30000);
    await converges(page, BASE, NS0, read, `${what}: after start() the watcher converges to the server's truth`);
    const after = await page.evaluate(() => ({
      deletes: window.r.changes.slice(window.r.mark).filter((c) => c.type === 'DELETED').map((c) => c.key),
      resets: window.r.resets,
      held: window.r.w.snapshot().map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
    }));
    const missed = vanished.filter((n) => !after.deletes.includes(n));
    check(missed.length === 0 && !vanished.some((n) => after.held.includes(n)),
      `${what}: every pod deleted meanwhile came as a DELETED change (${vanished.length} vanished, ${after.deletes.length} deletes, missed: ${missed.join(', ')})`);
    const requests = problems.requests.filter((q) => q.at >= t0 && q.url.includes('/api/v1/namespaces/ns-0/pods')).map((q) => q.url);
    const first = requests[0] ?? '';
    check(first.includes('watch=true') && first.includes(`resourceVersion=${held.rv}&`),
      `${what}: start() first watches from the version held, ${held.rv} (${first.replace(BASE, '')})`);
    if (what === 'resume') {
      const lists = requests.filter((u) => !u.includes('watch=true'));
      check(lists.length === 0, `resume: no relist (${lists.length} LISTs)`);
      check(after.resets.length === 0, `resume: no reset (${after.resets.join('; ')})`);
    } else {
      const lists = requests.filter((u) => !u.includes('watch=true'));
      check(lists.length >= 1, `relist: the expired version made it list again (${lists.length} LISTs)`);
      check(after.resets.length === 1 && after.resets[0].includes('expired'), `relist: a reset was announced (${after.resets.join('; ')})`);
    }
  }
  await page.evaluate(() => window.r.w.free());
  await context.close();
}

async function snapshots() {
  console.log('snapshots');
  const { page, context } = await packagePage(browser, BASE);
  await page.evaluate((path) => {
    const w = new window.kl.Watcher({ path });
    window.snap = { w, mismatches: 0, changes: 0, batches: 0, incomplete: [] };
    w.onChange(({ type, object }) => {
      window.snap.changes += 1;
      if (type !== 'DELETED' && w.get(object.metadata.namespace, object.metadata.name) !== object) window.snap.mismatches += 1;
      // A snapshot taken in the middle of a batch of changes.
      w.snapshot();
    });
    // After each batch, the snapshot holds all of it: as many objects as are held,
    // each at the version get() has.
    w.onUpdate(() => {
      window.snap.batches += 1;
      const all = w.snapshot();
      const stale = all.filter((o) => w.get(o.metadata.namespace, o.metadata.name)?.metadata.resourceVersion !== o.metadata.resourceVersion);
      if (all.length !== w.size || stale.length > 0) window.snap.incomplete.push(`${all.length}/${w.size}, ${stale.length} stale`);
    });
    w.start();
  }, NS0);
  await until('the watcher to sync', () => page.evaluate(reader('snap')), 30000);
  const got = await page.evaluate(async () => {
    const w = window.snap.w;
    const a = w.snapshot();
    const version = w.version;
    const same = a === w.snapshot() && a === w.snapshot();
    const first = a[0];
    const getSame = first !== undefined && w.get(first.metadata.namespace, first.metadata.name) === first;
    await new Promise((resolve) => { const off = w.onUpdate(() => { off(); resolve(); }); });
    const b = w.snapshot();
    const before = new Map(a.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]));
    let unchanged = 0;
    let kept = 0;
    let changedButSame = 0;
    for (const o of b) {
      const old = before.get(`${o.metadata.namespace}/${o.metadata.name}`);
      if (old && old.metadata.resourceVersion === o.metadata.resourceVersion) {
        unchanged += 1;
        if (old === o) kept += 1;
      } else if (old === o) {
        changedButSame += 1;
      }
    }
    let sorted = true;
    let threw = false;
    try { a.sort(); } catch { threw = true; }
    for (let i = 1; i < b.length; i++) {
      const k = (o) => `${o.metadata.namespace}\u0000${o.metadata.name}`;
      if (k(b[i - 1]) >= k(b[i])) sorted = false;
    }
    return { same, getSame, frozen: Object.isFrozen(a) && threw, moved: b !== a, version, after: w.version, unchanged, kept, changedButSame, sorted, n: b.length };
  });
  check(got.same, 'snapshot() returns the same array while nothing changes');
  check(got.frozen, 'the snapshot is frozen (sorting it in place throws)');
  check(got.getSame, 'get() returns the snapshot\'s object');
  check(got.moved && got.after > got.version, `after a change: a new array and a higher version (${got.version} → ${got.after})`);
  check(got.unchanged > 0 && got.kept === got.unchanged && got.changedButSame === 0,
    `objects that did not change keep their identity (${got.kept}/${got.unchanged}), changed ones are new`);
  check(got.sorted && got.n > 0, `sorted by namespace and name (${got.n})`);
  await until('a few more batches', () => page.evaluate(() => window.snap.batches >= 8), 30000);
  const seen = await page.evaluate(() => ({ ...window.snap, w: undefined }));
  check(seen.mismatches === 0 && seen.changes > 0, `a change's object is the one get() returns (${seen.changes} changes)`);
  check(seen.incomplete.length === 0, `snapshots taken inside change listeners leave the snapshot after each batch whole (${seen.batches} batches; ${seen.incomplete.join('; ')})`);
  await page.evaluate(() => window.snap.w.free());
  await context.close();
}

async function freeing() {
  console.log('free');
  const { page, context, problems } = await packagePage(browser, BASE);
  const got = await page.evaluate(async (path) => {
    // Every fetch the page makes after free(), seen where it is made.
    window.lateFetches = [];
    window.fetches = 0;
    const fetch = window.fetch.bind(window);
    window.fetch = (input, init) => {
      window.fetches += 1;
      if (window.freedAt !== undefined) window.lateFetches.push(String(input));
      return fetch(input, init);
    };
    const w = new window.kl.Watcher({ path });
    const phases = [];
    w.onStatus((s) => phases.push(s.phase));
    w.start();
    await new Promise((resolve) => w.onSynced(resolve));
    w.free();
    window.freedAt = performance.now();
    const calls = {
      'start()': () => w.start(),
      'stop()': () => w.stop(),
      'snapshot()': () => w.snapshot(),
      'get()': () => w.get('ns-0', 'x'),
      'status()': () => w.status(),
      size: () => w.size,
      version: () => w.version,
      'onChange()': () => w.onChange(() => {}),
      'subscribe()': () => w.subscribe(() => {}),
    };
    const errors = {};
    for (const [name, call] of Object.entries(calls)) {
      try {
        call();
        errors[name] = 'no error';
      } catch (e) {
        errors[name] = String(e);
      }
    }
    w.free(); // twice is fine
    return { last: phases.at(-1), errors, freed: w.freed };
  }, NS0);
  check(got.last === 'stopped', `free() stops and says so (last status: ${got.last})`);
  check(got.freed, 'freed says so');
  for (const [name, text] of Object.entries(got.errors)) {
    check(text === `Error: Watcher.${name}: this watcher was freed (free() was called); create a new one`, `after free(), ${name} fails naming itself: ${text}`);
  }
  await sleep(1500);
  const { late, fetches } = await page.evaluate(() => ({ late: window.lateFetches, fetches: window.fetches }));
  check(fetches > 0 && late.length === 0, `nothing is requested after free() (${fetches} fetches before; after: ${late.join(', ')})`);
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  await page.screenshot({ path: `${ARTIFACTS}/watcher.png` });
  await context.close();
}

/** The events of a watch of `path` from `rv` (node side, through the proxy) for `ms`: { type, key, rv }. */
async function watchFor(path, rv, ms) {
  const events = [];
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    const r = await fetch(`${BASE}${path}?watch=1&resourceVersion=${rv}`, { signal: abort.signal });
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of r.body) {
      text += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = text.indexOf('\n')) >= 0) {
        const line = text.slice(0, nl).trim();
        text = text.slice(nl + 1);
        if (!line) continue;
        const e = JSON.parse(line);
        if (e.type === 'BOOKMARK' || e.type === 'ERROR') continue;
        const m = e.object.metadata;
        events.push({ type: e.type, key: `${m.namespace ?? ''}/${m.name}`, rv: m.resourceVersion });
      }
    }
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  } finally {
    clearTimeout(timer);
  }
  return events;
}

async function history() {
  console.log('history');
  const { page, context, problems } = await packagePage(browser, BASE);
  // A page's own engine, and a shared one (in the worker) beside it.
  await page.evaluate((path) => {
    window.h = { w: new window.kl.Watcher({ path }), s: new window.kl.Watcher({ path, shared: true }), told: [] };
    window.h.s.addEventListener('history', (e) => window.h.told.push(e.detail));
    window.h.w.start();
    window.h.s.start();
  }, NS0);
  await until('the watchers to sync', () => page.evaluate(() => [window.h.w, window.h.s].every((w) => w.status().synced && w.status().phase === 'watching')), 30000);
  const from = await page.evaluate(() => String(Math.max(...[window.h.w, window.h.s].map((w) => Number(w.status().resourceVersion)))));
  // The sim's versions of each pod after `from`, seen by a watch of our own.
  let events = [];
  let pick = null;
  for (let i = 0; i < 4 && !pick; i++) {
    events = events.concat(await watchFor(NS0, events.length ? events[events.length - 1].rv : from, 5000));
    const per = new Map();
    for (const e of events) per.set(e.key, (per.get(e.key) ?? 0) + (e.type === 'MODIFIED' ? 1 : 0));
    pick = [...per].find(([, n]) => n >= 2)?.[0] ?? null;
  }
  check(pick !== null, `the sim modified a pod of ns-0 twice after the watcher's version ${from} (${events.length} events)`);
  if (pick) {
    const last = events[events.length - 1].rv;
    await until('the watcher to have the versions the watch saw', () => page.evaluate((rv) => Number(window.h.w.status().resourceVersion) >= Number(rv), last), 30000);
    const [ns, name] = pick.split('/');
    const got = await page.evaluate(([ns, name]) => window.h.w.history(ns, name), [ns, name]);
    const kind = { ADDED: 'added', MODIFIED: 'modified', DELETED: 'deleted' };
    const wanted = events.filter((e) => e.key === pick && Number(e.rv) <= Number(last)).map((e) => `${kind[e.type]}@${e.rv}`).reverse();
    const shown = got.filter((h) => Number(h.resourceVersion) > Number(from) && Number(h.resourceVersion) <= Number(last)).map((h) => `${h.kind}@${h.resourceVersion}`);
    check(JSON.stringify(shown) === JSON.stringify(wanted), `history(${ns}, ${name}) holds the versions the sim wrote, newest first (${shown.join(' ')}; the sim's: ${wanted.join(' ')})`);
    const paths = got.flatMap((h) => h.changes.map((c) => c.path));
    const modified = got.filter((h) => h.kind === 'modified');
    check(modified.length > 0 && modified.every((h) => h.changes.length > 0 && typeof h.time === 'number' && h.uid),
      `each modified version says what changed (${modified.map((h) => h.changes.length).join(', ')} changes: ${[...new Set(paths)].slice(0, 4).join(', ')})`);
    check(!paths.some((p) => /managedFields|metadata\.resourceVersion/.test(p)), 'managedFields and metadata.resourceVersion are left out of the changes');
    // The shared watcher's history comes from the worker: [] at first, then a
    // `history` event, then the same versions.
    await until('the shared watcher to have the versions', () => page.evaluate((rv) => Number(window.h.s.status().resourceVersion) >= Number(rv), last), 30000);
    const sharedGot = await until('the worker\'s answer', () => page.evaluate(([ns, name]) => {
      const h = window.h.s.history(ns, name);
      return h.length > 0 && h;
    }, [ns, name]), 10000, 50).catch(() => []);
    const sharedShown = sharedGot.filter((h) => Number(h.resourceVersion) > Number(from) && Number(h.resourceVersion) <= Number(last)).map((h) => `${h.kind}@${h.resourceVersion}`);
    check(JSON.stringify(sharedShown) === JSON.stringify(wanted), `a shared watcher's history(${ns}, ${name}) is the worker's, the same versions (${sharedShown.join(' ')})`);
    const told = await page.evaluate(() => window.h.told);
    check(told.some((t) => t.namespace === ns && t.name === name), `a 'history' event said the answer came (${JSON.stringify(told.slice(0, 2))})`);
    check(await page.evaluate(([ns, name]) => window.h.s.history(ns, name) === window.h.s.history(ns, name), [ns, name]), 'the same array until a new answer comes');
  }
  const typed = await page.evaluate(() => {
    try {
      window.h.w.history('ns-0');
      return 'no error';
    } catch (e) {
      return String(e);
    }
  });
  check(typed.startsWith('TypeError: Watcher.history(namespace, name)'), `history() without a name is a TypeError: ${typed}`);
  const none = await page.evaluate(() => window.h.w.history('ns-0', 'no-such-pod'));
  check(Array.isArray(none) && none.length === 0, 'an object never seen has no history ([])');
  await page.evaluate(() => { window.h.w.free(); window.h.s.free(); });
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  await context.close();
}
