// The browser benchmarks of kubelive, end to end, in headless Chromium (the system
// one, through playwright-core):
//
//  1. decode + apply: web/bench/ (kubelive-core in wasm vs JSON.parse + Map, same
//     bytes, same page), served with the dist by a small static server here;
//  2. 100,000 pods through the real `kubectl proxy --www dist --www-prefix /ui/` in
//     front of kubelive-sim: first LIST page arrived -> first table rows in the DOM,
//     and navigation -> Synced (status bar), in fresh browser contexts;
//  3. the same with 1,000 changes/s: requestAnimationFrame deltas over 10 s while
//     scrolled to the middle of the table (p50, p95, max), then while scrolling 10
//     rows a frame; with the app's own work per frame (its `kubelive:frame` measure).
//
//  4. store (not in the default ONLY): the driver + store without the app
//     (web/bench/sync.html, `BenchSync`) syncing PODS pods through the same proxy, in
//     the STORE_MODES given (list-objects, stream-objects, list-tables, stream-tables;
//     objects with managedFields stripped, tables with includeObject=Metadata), STORE_RUNS
//     times each in fresh contexts: navigation -> Synced, the wasm memory, the store's heap
//     bytes and the JS heap after a forced GC (CDP Performance.getMetrics).
//
// Prints a markdown table (and writes it with the raw figures to $ARTIFACTS).
// `cargo xtask bench` runs it with everything built; by hand:
//   SIM_BIN=target/release/kubelive-sim STREAM=watch.jsonl DIST=dist node web/bench/run.mjs
// Env: DIST, SIM_BIN, STREAM (required), KUBECTL (kubectl), PODS (100000),
// CHURN (1000), RUNS (5: decode rounds and syncs), FRAME_SECS (10), FRAME_RUNS (3),
// SCROLL_RUNS (2: frames while scrolling), SCROLL_SPEEDS (5600,16800 px/s, in turn),
// ONLY (decode,sync,frames: a subset), AB_PIPELINE (1: each sync run is followed by
// one with `&pipeline=0`, LIST pages asked for one at a time, the baseline), ARTIFACTS, PROFILE (1: a CPU profile of the
// first frames run, written to $ARTIFACTS/frames.cpuprofile and summarised; build the
// dist with function names for it to say much), TRACE (1: a browser-wide trace of the
// first frames run; TRACE_BASELINE=1 traces the first static-page run instead; with
// PROFILE_SYNC, of the first sync of each mode too), PROFILE_SYNC (1: a CPU profile of
// the first sync of each mode), SETTLE_MS (3000: a fresh window's wait before the app).
//
//  5. syncab (not in the default ONLY): the syncs of (2) for two builds, BEFORE=dir and
//     DIST, alternating run by run against one sim, each behind its own kubectl proxy;
//     with the CPU the sim and the proxy spent until Synced and the first rows after the
//     first LIST page (list-then-watch). SYNCAB_MODES: list, stream (both by default).
//     BEFORE=a,b,...: several builds to compare with, each behind its own proxy, in turns. BEFORE_SIM_BIN: the before
//     build gets a sim of its own, that binary (a comparison of both sides).
//
// ONLY=keys (not in the default): the app at PODS rows (streaming list) with CHURN
// changes/s: filter keystrokes (KEY_ACTIONS: type:TEXT sets the box, sort:COL clicks a
// header) timed from the event to the frame after the first row changed, long
// animation frames around each, then frames still and scrolling at 5,600 px/s; with
// BEFORE=DIST another build over the same sim (a second kubectl proxy), in turns,
// KEY_ROUNDS times (BEFORE=DIST1,DIST2,...: several, each behind its own proxy);
// PROFILE_KEYS=1: a CPU profile of the page over the first still frames run.
// PROFILE_CLICKS=1: a CPU profile of the page over each keystroke or click and its settle time.
import { createReadStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { launch, openPage, until } from '../tests/lib.mjs';
import { freePort, median, sleep, start, startCluster as startSim, stop, treeCpuSeconds } from './cluster.mjs';

const env = process.env;
const here = new URL('.', import.meta.url).pathname;
const DIST = resolve(env.DIST || join(here, '../../dist'));
const SIM_BIN = env.SIM_BIN;
const STREAM = env.STREAM && resolve(env.STREAM);
const KUBECTL = env.KUBECTL || 'kubectl';
const PODS = Number(env.PODS || 100000);
const CHURN = Number(env.CHURN || 1000);
const RUNS = Number(env.RUNS || 5);
const FRAME_SECS = Number(env.FRAME_SECS || 10);
const FRAME_RUNS = Number(env.FRAME_RUNS || 3);
const SCROLL_RUNS = Number(env.SCROLL_RUNS || 2);
// px/s of the scrolling runs, one speed per run, repeated: a brisk wheel (200 rows/s)
// and a fling (600 rows/s, 10 rows a frame).
const SCROLL_SPEEDS = (env.SCROLL_SPEEDS || '5600,16800').split(',').map(Number);
const ONLY = new Set((env.ONLY || 'decode,sync,frames').split(','));
const AB_PIPELINE = env.AB_PIPELINE === '1';
const STORE_MODES = (env.STORE_MODES || 'list-objects,stream-objects,list-tables,stream-tables').split(',');
const STORE_RUNS = Number(env.STORE_RUNS || 3);
const ARTIFACTS = env.ARTIFACTS || join(here, '../../artifacts');
const PROFILE = env.PROFILE === '1';
// PROFILE_SYNC=1: a CPU profile of the page (its main thread) during the first sync of
// each mode, in $ARTIFACTS/sync-list.cpuprofile and sync-stream.cpuprofile, summarised.
const PROFILE_SYNC = env.PROFILE_SYNC === '1';
// ms between opening a fresh window and navigating it to the app (sync runs).
const SETTLE_MS = Number(env.SETTLE_MS ?? 3000);
// ONLY=syncab: the dist directory of the build to compare DIST with.
const BEFORE = env.BEFORE && resolve(env.BEFORE);
// NO_DEVTOOLS=1 (syncab): each sync in its own Chromium without Playwright (see syncOnceNoDevtools).
const NO_DEVTOOLS = env.NO_DEVTOOLS === '1';
// TRACE=1: a browser-wide trace of the first frames run (all processes and threads),
// summarised by thread and event, in $ARTIFACTS/frames.trace.json.
const TRACE = env.TRACE === '1';

const spread = (xs, f = (x) => x.toFixed(0)) => `${f(Math.min(...xs))}..${f(Math.max(...xs))}`;
const log = (s) => console.error(`[bench] ${s}`);

/** kubelive-sim with `objects` pods churning `churn`/s, behind kubectl proxy. */
const startCluster = (objects, churn) => startSim({ simBin: SIM_BIN, kubectl: KUBECTL, dist: DIST, objects, churn, log });

/** A static server of the dist, with the stream file at /bench/watch.jsonl. */
function staticServer() {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.jsonl': 'application/json' };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = path === '/bench/watch.jsonl' ? STREAM : join(DIST, normalize(path));
    if (!file.startsWith(DIST) && file !== STREAM) file = null;
    try {
      if (file && statSync(file).isDirectory()) file = join(file, 'index.html');
      const size = statSync(file).size;
      res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream', 'content-length': size });
      createReadStream(file).pipe(res);
    } catch (_) {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

function failOnProblems(problems, what) {
  const all = [...problems.errors, ...problems.console];
  if (all.length) throw new Error(`${what}: page errors: ${all.slice(0, 3).join(' | ')}`);
}

// 1. decode + apply -------------------------------------------------------------
async function decodeBench(browser) {
  if (!STREAM) throw new Error('STREAM: the watch stream file is needed');
  const server = await staticServer();
  try {
    const { context, page, problems } = await openPage(browser);
    const url = `http://127.0.0.1:${server.address().port}/bench/?runs=${RUNS}&stream=./watch.jsonl`;
    log(`decode + apply: ${url}`);
    await page.goto(url);
    const r = await until('the decode bench', () => page.evaluate(() => window.__bench), 30 * 60 * 1000, 500);
    await context.close();
    if (r.error) throw new Error(`bench page: ${r.error}`);
    failOnProblems(problems, 'bench page');
    return r;
  } finally {
    server.close();
  }
}

// 2. 100,000 pods: first rows, synced --------------------------------------------
/** Installed before the app loads: when rows first enter the DOM, when Synced shows. */
function marks() {
  // rowsFrame: the app's work (its `kubelive:frame` measure, ms: from the frame's
  // update to the end of its render) in the render that first put rows in the DOM, the
  // last one to start before they were seen.
  const m = { rows: null, rowsPainted: null, synced: null, rowsFrame: null };
  window.__kubeliveMarks = m;
  const frames = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) if (e.name === 'kubelive:frame' && frames.length < 200) frames.push([e.startTime, e.duration]);
    if (m.rows !== null && m.rowsFrame === null) {
      const before = frames.filter(([start]) => start <= m.rows);
      if (before.length) m.rowsFrame = before[before.length - 1][1];
    }
  }).observe({ type: 'measure' });
  const obs = new MutationObserver(() => {
    const now = performance.now();
    if (m.rows === null && document.querySelector('#scroller .row')) {
      m.rows = now;
      // Trace timestamps (TRACE=1): where the marks fall among the page's tasks.
      console.timeStamp('kubelive:rows');
      requestAnimationFrame(() => setTimeout(() => {
        m.rowsPainted = performance.now();
        console.timeStamp('kubelive:rowsPainted');
      }, 0));
    }
    if (m.synced === null && document.querySelector('#status[data-synced="true"]')) m.synced = now;
    if (m.rows !== null && m.synced !== null) obs.disconnect();
  });
  obs.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-synced'] });
}

async function syncOnce(browser, cluster, streaming = false, profile = null, pipeline = true) {
  const { context, page, problems } = await openPage(browser);
  // A new headless window loads the browser's own UI pages (the omnibox popup's WebUI
  // renderer: ~3 s of CPU on a loaded 2-core machine) in its first seconds; a user's
  // browser has done that long before opening the app. Let it settle first.
  await page.goto('about:blank');
  await sleep(SETTLE_MS);
  await page.addInitScript(marks);
  let cdp = null;
  if (profile) {
    cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  const tracing = profile && TRACE ? await startTrace(browser, `${profile}.trace.json`) : null;
  // The page's main-thread time until Synced (CDP Performance: tasks, of them script),
  // which a loaded machine inflates less than the wall clock.
  const perf = cdp || await context.newCDPSession(page);
  await perf.send('Performance.enable');
  const busy = async () => {
    const { metrics } = await perf.send('Performance.getMetrics');
    const get = (name) => metrics.find((x) => x.name === name)?.value ?? NaN;
    return { task: get('TaskDuration'), script: get('ScriptDuration') };
  };
  const busy0 = await busy();
  // CPU seconds of the browser's renderer processes (this page's is the one at work):
  // what the sync cost, which a loaded machine inflates far less than the wall clock.
  const sys = await browser.newBrowserCDPSession();
  const rendererCpu = async () => {
    const { processInfo } = await sys.send('SystemInfo.getProcessInfo');
    return new Map(processInfo.filter((p) => p.type === 'renderer').map((p) => [p.id, p.cpuTime]));
  };
  const renderer0 = await rendererCpu();
  const cpu0 = cluster.cpu();
  await page.goto(`${cluster.base}/ui/#r=v1/pods${streaming ? '&stream=1' : ''}${pipeline ? '' : '&pipeline=0'}`);
  await until('Synced', () => page.evaluate(() => window.__kubeliveMarks?.synced !== null), 10 * 60 * 1000, 100);
  const cpu1 = cluster.cpu();
  const busy1 = await busy();
  const renderer1 = await rendererCpu();
  await sys.detach();
  // (A navigation to another renderer starts its counters again.)
  const since = (k) => (busy1[k] >= busy0[k] ? busy1[k] - busy0[k] : busy1[k]);
  if (cdp) summariseProfile((await cdp.send('Profiler.stop')).profile, profile);
  if (tracing) await tracing.stop();
  await until('rows painted', () => page.evaluate(() => window.__kubeliveMarks?.rowsPainted !== null), 10000, 50);
  const r = await page.evaluate(() => {
    const pages = performance.getEntriesByType('resource').filter((e) => /\/api\/v1\/pods\?.*limit=/.test(e.name));
    const first = pages[0];
    // Pipelined pages: a page asked for before the previous one had fully arrived.
    const ahead = pages.filter((e, i) => i > 0 && e.startTime < pages[i - 1].responseEnd).length;
    return {
      ...window.__kubeliveMarks,
      ahead,
      firstPageStart: first && first.responseStart,
      firstPageEnd: first && first.responseEnd,
      firstPageBytes: first && first.encodedBodySize,
      pages: pages.length,
      total: Number(document.getElementById('total-count').textContent),
    };
  });
  // CPU seconds the sim and kubectl proxy spent until Synced (polled: up to 100 ms late).
  r.simCpu = cpu1.sim - cpu0.sim;
  r.proxyCpu = cpu1.proxy - cpu0.proxy;
  r.mainTaskMs = 1000 * since('task');
  r.mainScriptMs = 1000 * since('script');
  r.rendererCpu = [...renderer1].reduce((a, [id, t]) => a + t - (renderer0.get(id) ?? 0), 0);
  failOnProblems(problems, 'app (sync)');
  await context.close();
  if (r.total !== PODS) throw new Error(`synced with ${r.total} objects, expected ${PODS}`);
  return r;
}

/**
 * `syncOnce` in a Chromium that no Playwright drives (NO_DEVTOOLS=1): Playwright enables
 * the DevTools Network domain on every page, and with it the renderer keeps a text copy
 * of every fetch response for `Network.getResponseBody` (each 1.4 MB LIST page decoded
 * as text, ~8 ms a page here), which a user's browser never does. Here a fresh Chromium
 * per run is driven over its own DevTools socket with the Page and Runtime domains only.
 * Needs a WebSocket (Node 22, or node --experimental-websocket).
 */
async function syncOnceNoDevtools(cluster, streaming) {
  if (typeof WebSocket === 'undefined') throw new Error('NO_DEVTOOLS=1 needs a WebSocket: Node 22, or node --experimental-websocket');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'kubelive-chromium-'));
  const args = [
    '--headless=new', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--window-size=1400,900',
    `--remote-debugging-port=${port}`, `--user-data-dir=${dir}`, 'about:blank',
  ];
  if (process.getuid && process.getuid() === 0) args.unshift('--no-sandbox');
  const chrome = start(env.CHROMIUM || '/usr/bin/chromium', args, log);
  let ws = null;
  try {
    const target = await until('chromium', async () => {
      const r = await fetch(`http://127.0.0.1:${port}/json/list`).catch(() => null);
      return r && (await r.json()).find((t) => t.type === 'page');
    }, 30000, 100);
    ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((res, rej) => { ws.onopen = res; ws.onerror = rej; });
    let id = 0;
    const pending = new Map();
    ws.onmessage = (m) => {
      const d = JSON.parse(m.data);
      if (pending.has(d.id)) {
        pending.get(d.id)(d);
        pending.delete(d.id);
      }
    };
    const send = (method, params = {}) => new Promise((res, rej) => {
      id += 1;
      pending.set(id, (d) => (d.error ? rej(new Error(`${method}: ${d.error.message}`)) : res(d.result)));
      ws.send(JSON.stringify({ id, method, params }));
    });
    const evaluate = async (expression) => {
      const r = await send('Runtime.evaluate', { expression, returnByValue: true });
      if (r.exceptionDetails) throw new Error(`evaluate: ${JSON.stringify(r.exceptionDetails).slice(0, 300)}`);
      return r.result.value;
    };
    await sleep(SETTLE_MS);
    await send('Page.enable');
    await send('Page.addScriptToEvaluateOnNewDocument', { source: `(${marks})()` });
    const cpu0 = cluster.cpu();
    const browser0 = treeCpuSeconds(chrome.pid);
    await send('Page.navigate', { url: `${cluster.base}/ui/#r=v1/pods${streaming ? '&stream=1' : ''}` });
    await until('Synced', () => evaluate('window.__kubeliveMarks?.synced != null'), 10 * 60 * 1000, 100);
    const cpu1 = cluster.cpu();
    const browser1 = treeCpuSeconds(chrome.pid);
    await until('rows painted', () => evaluate('window.__kubeliveMarks?.rowsPainted != null'), 10000, 50);
    const r = await evaluate(`(() => {
      const pages = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/v1/pods?') && e.name.includes('limit='));
      const first = pages[0];
      return {
        ...window.__kubeliveMarks,
        firstPageStart: first && first.responseStart,
        firstPageEnd: first && first.responseEnd,
        firstPageBytes: first && first.encodedBodySize,
        pages: pages.length,
        total: Number(document.getElementById('total-count').textContent),
      };
    })()`);
    r.simCpu = cpu1.sim - cpu0.sim;
    r.proxyCpu = cpu1.proxy - cpu0.proxy;
    // Chromium's CPU until Synced by process type (the renderer, the network service...).
    r.browserCpu = Object.fromEntries(Object.entries(browser1).map(([t, s]) => [t, +(s - (browser0[t] || 0)).toFixed(2)]));
    if (r.total !== PODS) throw new Error(`synced with ${r.total} objects, expected ${PODS}`);
    return r;
  } finally {
    if (ws) ws.close();
    stop(chrome);
    await sleep(200);
    rmSync(dir, { recursive: true, force: true });
  }
}

// 4. driver + store, no app ---------------------------------------------------------
async function storeSyncOnce(browser, base, mode) {
  const [how, what] = mode.split('-');
  const { context, page, problems } = await openPage(browser);
  const q = `stream=${how === 'stream' ? 1 : 0}&tables=${what === 'tables' ? 1 : 0}`;
  await page.goto(`${base}/ui/bench/sync.html?path=/api/v1/pods&${q}`);
  await until(`Synced (${mode})`, () => page.evaluate(() => window.__sync !== undefined), 20 * 60 * 1000, 200);
  const r = await page.evaluate(() => window.__sync);
  if (r.error && !r.objects) throw new Error(`sync page (${mode}): ${r.error}`);
  const cdp = await context.newCDPSession(page);
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name) => metrics.find((m) => m.name === name)?.value;
  r.jsHeapUsed = metric('JSHeapUsedSize');
  r.jsHeapTotal = metric('JSHeapTotalSize');
  failOnProblems(problems, `sync page (${mode})`);
  await context.close();
  if (r.objects !== PODS) throw new Error(`${mode}: synced with ${r.objects} objects, expected ${PODS}`);
  return r;
}

// 3. frames under churn -----------------------------------------------------------
async function frames(browser, base, baseline = false) {
  const { context, page, problems } = await openPage(browser);
  if (baseline === 'rows') {
    await rowsFloorPage(page, base);
  } else if (baseline) {
    // The same gestures over a static page of the table's height (plain: no text, no
    // stripes), in the same browser while the sim churns: what this machine does with
    // no app at all.
    await page.setContent(`<body style="margin:0;background:#0f1419"><div id="status" data-rv="0"></div><div class="table" aria-rowcount="${PODS}">`
      + `<div id="scroller" style="height:800px;overflow:auto"><div style="height:${PODS * 28}px"></div></div></div></body>`);
  } else {
    await page.goto(`${base}/ui/#r=v1/pods`);
    await until('Synced', () => page.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 10 * 60 * 1000, 200);
  }
  await page.evaluate(() => {
    const s = document.getElementById('scroller');
    s.scrollTop = s.scrollHeight / 2 - s.clientHeight / 2;
  });
  await sleep(3000);
  const runs = [];
  // Idle runs (the user reads the middle of the table), then scrolling runs: a mouse
  // scroll gesture synthesized by the browser's input pipeline (compositor-threaded
  // like a real wheel), downwards for the whole run at SCROLL_SPEEDS in turn.
  const modes = [
    ...Array(baseline ? 0 : FRAME_RUNS).fill('still'),
    ...Array.from({ length: baseline ? SCROLL_SPEEDS.length : SCROLL_RUNS }, (_, i) => `scrolling ${SCROLL_SPEEDS[i % SCROLL_SPEEDS.length]} px/s`),
  ].map((m) => (baseline ? `${m}, ${baseline === 'rows' ? 'rows without the app' : 'static page'}` : m));
  for (const [i, mode] of modes.entries()) {
    const tracing = TRACE && i === 0 && baseline === (env.TRACE_BASELINE === '1') ? await startTrace(browser) : null;
    const cdp = PROFILE && i === 0 && !baseline ? await page.context().newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    let gesture = null;
    if (mode.startsWith('scrolling')) {
      const speed = Number(mode.split(' ')[1]);
      const input = await page.context().newCDPSession(page);
      gesture = input.send('Input.synthesizeScrollGesture', {
        x: 700, y: 450, yDistance: -speed * FRAME_SECS, speed, gestureSourceType: 'mouse', preventFling: true,
      });
    }
    const r = await page.evaluate((secs) => new Promise((done) => {
      const rv0 = Number(document.getElementById('status').dataset.rv);
      // Long animation frames (> 50 ms of work), where the browser reports them.
      const long = [];
      let observer = null;
      if ((PerformanceObserver.supportedEntryTypes || []).includes('long-animation-frame')) {
        observer = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => ({
          ms: e.duration,
          // Where the frame's time went: tasks and scripts, then rendering (style and
          // layout included), then style and layout alone.
          script: (e.renderStart || e.startTime + e.duration) - e.startTime,
          render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
          scripts: e.scripts.map((x) => `${x.invoker || x.invokerType} ${x.duration.toFixed(0)}ms`).slice(0, 4),
        }))));
        observer.observe({ type: 'long-animation-frame' });
      }
      // The app's own work per frame (update and render), from its User Timing.
      const work = [];
      const workObserver = new PerformanceObserver((l) => work.push(...l.getEntries().filter((e) => e.name === 'kubelive:frame').map((e) => e.duration)));
      workObserver.observe({ type: 'measure' });
      const deltas = [];
      let last = null;
      const t0 = performance.now();
      const step = (t) => {
        if (last !== null) deltas.push(t - last);
        last = t;
        if (t - t0 < secs * 1000) requestAnimationFrame(step);
        else {
          if (observer) observer.disconnect();
          workObserver.disconnect();
          done({ deltas, work, long: observer ? long : null, rvMoved: Number(document.getElementById('status').dataset.rv) - rv0, ms: t - t0 });
        }
      };
      requestAnimationFrame(step);
    }), FRAME_SECS);
    const scrolled = await page.evaluate(() => document.getElementById('scroller').scrollTop);
    if (gesture) await gesture;
    if (cdp) summariseProfile((await cdp.send('Profiler.stop')).profile);
    if (tracing) await tracing.stop();
    const d = [...r.deltas].sort((a, b) => a - b);
    const q = (p) => d[Math.min(d.length - 1, Math.floor(p * d.length))];
    const w = [...r.work].sort((a, b) => a - b);
    const wq = (p) => w[Math.min(w.length - 1, Math.floor(p * w.length))] ?? NaN;
    const row = {
      mode,
      scrollTop: scrolled,
      frames: d.length,
      p50: q(0.5),
      p95: q(0.95),
      max: d[d.length - 1],
      over16: d.filter((x) => x > 16.7 * 1.5).length,
      renders: w.length,
      workP50: wq(0.5),
      workP95: wq(0.95),
      workMax: w[w.length - 1] ?? NaN,
      longFrames: r.long ? r.long.length : null,
      longest: r.long ? r.long.sort((a, b) => b.ms - a.ms).slice(0, 3) : null,
      changesPerSec: r.rvMoved / (r.ms / 1000),
    };
    row.rows = await page.evaluate(() => Number(document.querySelector('.table').getAttribute('aria-rowcount')));
    log(`frames: ${JSON.stringify(row)}`);
    runs.push(row);
  }
  failOnProblems(problems, 'app (frames)');
  await context.close();
  return runs;
}

/**
 * The least a DOM table can do per scrolled frame on this machine: the app's page and
 * stylesheet with the app's own row markup (one synced row's HTML taken as the template),
 * then the app replaced by a few lines of plain script that keep a pool of those rows in
 * place as the page scrolls (the app's scheme: rows keyed by index modulo the pool, moved
 * by `transform`, their cells' text set), with no data, no engine, no framework and no
 * churn shown. What is left is the browser's own work for rows scrolling in.
 * FLOOR_PLAIN=1: each row one text node (no cells), less than any table; FLOOR_CSS:
 * rules added to the copy's stylesheet (to find what the rows' cost is made of).
 */
async function rowsFloorPage(page, base) {
  await page.goto(`${base}/ui/#r=v1/pods`);
  await until('Synced', () => page.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 10 * 60 * 1000, 200);
  log('rows floor: app synced, copying its page');
  // A still copy of the app's page (its DOM as it stands, no script running): the same
  // layout, header and bars around the table.
  const html = await page.evaluate(() => document.getElementById('app').outerHTML);
  // A new document in a new window: the app's loops and fetches go with the old one.
  await page.goto(`${base}/ui/bench/floor.html`);
  await page.evaluate(([rows, app, plain, css]) => {
    document.body.innerHTML = app;
    if (css) document.head.append(Object.assign(document.createElement('style'), { textContent: css }));
    const scroller = document.getElementById('scroller');
    const win = scroller.querySelector('.window');
    const template = win.querySelector('.row').cloneNode(true);
    template.className = 'row';
    template.removeAttribute('style');
    win.replaceChildren();
    win.style.transform = '';
    const height = Number(getComputedStyle(document.querySelector('.app')).getPropertyValue('--row-height').replace('px', '')) || 28;
    scroller.querySelector('.spacer').style.height = `${rows * height}px`;
    const pool = 2 * Math.ceil((Math.ceil(scroller.clientHeight / height) + 16) / 2);
    const els = Array.from({ length: pool }, () => { const e = template.cloneNode(true); win.append(e); e.dataset.index = '-1'; return e; });
    const words = ['Running', 'Pending', 'CrashLoopBackOff'];
    const text = (i, c) => [`app-${i % 50}-pod-${i}-x${(i * 7919) % 100000}`, `ns-${i % 20}`, '1/1', words[i % 3], String(i % 11), `${(i % 59) + 1}m`, `10.0.${i % 250}.${i % 200}`, `node-${i % 40}`][c % 8];
    let queued = false;
    const place = () => {
      queued = false;
      const first = Math.max(0, Math.floor(scroller.scrollTop / height) - 8);
      for (let i = first; i < Math.min(rows, first + pool); i++) {
        const e = els[i % pool];
        if (e.dataset.index === String(i)) continue;
        e.dataset.index = String(i);
        e.style.transform = `translateY(${i * height}px)`;
        e.classList.toggle('odd', i % 2 === 1);
        e.setAttribute('aria-rowindex', String(i + 1));
        if (plain) e.textContent = [0, 1, 2, 3, 4, 5].map((c) => text(i, c)).join('   ');
        else [...e.children].forEach((cell, c) => { cell.textContent = text(i, c); });
      }
    };
    scroller.addEventListener('scroll', () => { if (!queued) { queued = true; requestAnimationFrame(place); } });
    scroller.scrollTop = scroller.scrollHeight / 2;
    place();
  }, [PODS, html, env.FLOOR_PLAIN === '1', env.FLOOR_CSS || '']);
  log('rows floor: ready');
}

/** Starts a browser-wide trace; `stop()` writes it and logs busy time by thread and the
 *  main events of the busiest threads. */
async function startTrace(browser, file = 'frames.trace.json') {
  const cdp = await browser.newBrowserCDPSession();
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  await cdp.send('Tracing.start', {
    // TRACE_CATEGORIES: more to record (invalidation tracking, say).
    categories: ['devtools.timeline,blink,cc,viz,gpu,disabled-by-default-devtools.timeline.frame,toplevel', env.TRACE_CATEGORIES].filter(Boolean).join(','),
    transferMode: 'ReportEvents',
  });
  return {
    async stop() {
      const finished = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.end');
      await finished;
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, file), JSON.stringify(events));
      const names = new Map();
      for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
      const procs = new Map();
      for (const e of events) if (e.ph === 'M' && e.name === 'process_name') procs.set(e.pid, e.args.name);
      // Busy time: top-level tasks only ('toplevel' category), per thread.
      const busy = new Map();
      const byEvent = new Map();
      for (const e of events) {
        if (e.ph !== 'X' || !e.dur) continue;
        const thread = `${procs.get(e.pid) || e.pid}/${names.get(`${e.pid}:${e.tid}`) || e.tid}`;
        if ((e.cat || '').split(',').includes('toplevel')) busy.set(thread, (busy.get(thread) || 0) + e.dur / 1000);
        const k = `${thread} ${e.name}`;
        byEvent.set(k, (byEvent.get(k) || 0) + e.dur / 1000);
      }
      log(`trace (${file}, all processes): busy ms by thread (top-level tasks):`);
      [...busy.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12)
        .forEach(([t, ms]) => log(`  ${ms.toFixed(0).padStart(7)} ms  ${t}`));
      log('inclusive ms by thread and event:');
      [...byEvent.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)
        .forEach(([k, ms]) => log(`  ${ms.toFixed(0).padStart(7)} ms  ${k.slice(0, 120)}`));
    },
  };
}

/** Writes a CPU profile and logs the functions with the most self time. */
function summariseProfile(profile, name = 'frames') {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, `${name}.cpuprofile`), JSON.stringify(profile));
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = f.functionName || `(anonymous ${f.url.split('/').pop()}:${f.lineNumber})`;
    self.set(name, (self.get(name) || 0) + (dt[i] || 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  log(`profile: ${total.toFixed(0)} ms sampled; top self time:`);
  [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)
    .forEach(([n, ms]) => log(`  ${ms.toFixed(0).padStart(7)} ms ${(100 * ms / total).toFixed(1).padStart(5)}%  ${n.slice(0, 110)}`));
}

// 5. keys: keystroke -> painted at PODS rows (ONLY=keys) ---------------------------
/** In the page: runs `action`, then waits for the rows' DOM to change and the frame
 *  after it; the time from the event to that frame, the long animation frames from the
 *  event to `settle` ms after the paint, and the app's work in that span. */
function keystroke([action, settle]) {
  return new Promise((done) => {
    const long = [];
    const lo = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => e.duration)));
    lo.observe({ type: 'long-animation-frame' });
    const work = [];
    // The app's first measured work after the event (a click's update and render).
    let firstWork = null;
    const wo = new PerformanceObserver((l) => {
      const mine = l.getEntries().filter((e) => e.name === 'kubelive:frame');
      if (firstWork === null) firstWork = mine.find((e) => t0 !== null && e.startTime >= t0)?.duration ?? null;
      work.push(...mine.map((e) => e.duration));
    });
    wo.observe({ type: 'measure' });
    const scroller = document.getElementById('scroller');
    // The first row in the table's order (the row elements are a pool in their own order).
    const firstKey = () => [...scroller.querySelectorAll('.row')].sort((a, b) => a.ariaRowIndex - b.ariaRowIndex)[0]?.dataset.key ?? null;
    // The first row, or else the count (a filter that every first row matches).
    const shown = () => `${firstKey()} ${document.getElementById('shown-count').textContent}`;
    const before = shown();
    let t0 = null;
    let dom = null;
    // A sort whose rows past the first screen are put in order after the click: the
    // table is `aria-busy` until they are (sortedMs: the click to that).
    const table = document.querySelector('.table');
    let busy = false;
    let sorted = null;
    const bo = new MutationObserver(() => {
      if (table.getAttribute('aria-busy') === 'true') busy = true;
      else if (busy && sorted === null) sorted = performance.now();
    });
    bo.observe(table, { attributes: true, attributeFilter: ['aria-busy'] });
    const finish = (painted) => setTimeout(() => {
      lo.disconnect();
      wo.disconnect();
      bo.disconnect();
      done({ ms: painted === null ? null : painted - t0, domMs: dom === null ? null : dom - t0, firstWork, sortedMs: sorted === null ? null : sorted - t0, busyAtEnd: table.getAttribute('aria-busy') === 'true', long: long.filter((d) => d > 50), maxLong: Math.max(0, ...long), work: work.reduce((a, b) => a + b, 0), first: firstKey(), before, count: document.getElementById('shown-count').textContent });
    }, settle);
    const mo = new MutationObserver(() => {
      if (dom !== null || shown() === before) return;
      dom = performance.now();
      mo.disconnect();
      requestAnimationFrame(() => setTimeout(() => finish(performance.now()), 0));
    });
    mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    setTimeout(() => { if (dom === null) { mo.disconnect(); finish(null); } }, 20000);
    const filter = document.getElementById('filter');
    let ev;
    if (action.startsWith('type:')) {
      filter.value = action.slice(5);
      ev = new InputEvent('input', { bubbles: true, data: action.slice(-1), inputType: 'insertText' });
      t0 = ev.timeStamp;
      filter.dispatchEvent(ev);
    } else if (action.startsWith('sort:')) {
      const th = document.querySelector(`.thead [data-col="${action.slice(5)}"]`);
      ev = new MouseEvent('click', { bubbles: true });
      t0 = ev.timeStamp;
      th.dispatchEvent(ev);
    }
  });
}

/** Frames at the page's rows: `secs` of rAF deltas, still or scrolling (`speed` px/s). */
async function frameRun(page, secs, speed) {
  let gesture = null;
  if (speed) {
    const input = await page.context().newCDPSession(page);
    gesture = input.send('Input.synthesizeScrollGesture', { x: 700, y: 450, yDistance: -speed * secs, speed, gestureSourceType: 'mouse', preventFling: true });
  }
  const r = await page.evaluate((secs) => new Promise((done) => {
    const long = [];
    const lo = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => e.duration)));
    lo.observe({ type: 'long-animation-frame' });
    const work = [];
    const wo = new PerformanceObserver((l) => work.push(...l.getEntries().filter((e) => e.name === 'kubelive:frame').map((e) => e.duration)));
    wo.observe({ type: 'measure' });
    const deltas = [];
    let last = null;
    const t0 = performance.now();
    const rv0 = Number(document.getElementById('status').dataset.rv);
    const step = (t) => {
      if (last !== null) deltas.push(t - last);
      last = t;
      if (t - t0 < secs * 1000) requestAnimationFrame(step);
      else { lo.disconnect(); wo.disconnect(); done({ deltas, work, long, changes: (Number(document.getElementById('status').dataset.rv) - rv0) / secs }); }
    };
    requestAnimationFrame(step);
  }), secs);
  if (gesture) await gesture;
  const d = [...r.deltas].sort((a, b) => a - b);
  const w = [...r.work].sort((a, b) => a - b);
  const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
  return { frames: d.length, p50: q(d, 0.5), p95: q(d, 0.95), max: d[d.length - 1], workP50: q(w, 0.5), workP95: q(w, 0.95), long50: r.long.filter((x) => x > 50).length, long100: r.long.filter((x) => x > 100).length, maxLong: Math.max(0, ...r.long), changes: r.changes };
}

// KEY_ACTIONS=none: no keystrokes, the frames alone.
const KEY_ACTIONS = env.KEY_ACTIONS === 'none' ? [] : (env.KEY_ACTIONS || 'type:x,type:xq,type:,sort:name,sort:restarts,sort:age,sort:name').split(',');
const KEY_SETTLE = Number(env.KEY_SETTLE || 2500);
const KEY_WAIT = Number(env.KEY_WAIT || 3000);
const PROFILE_KEYS = env.PROFILE_KEYS === '1' || env.PROFILE_KEYS === 'scroll';
const PROFILE_CLICKS = env.PROFILE_CLICKS === '1';

/** The keystroke and frame measures against one build (`base` serves it). */
async function keysOnce(browser, base, label) {
  const { context, page, problems } = await openPage(browser);
  const t0 = Date.now();
  await page.goto(`${base}/ui/#r=v1/pods&stream=1`);
  await until('Synced', () => page.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 15 * 60 * 1000, 500);
  const rows = await page.evaluate(() => Number(document.querySelector('.table').getAttribute('aria-rowcount')));
  log(`keys ${label}: synced ${rows} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // KEY_WAIT: ms between Synced and the first action (the tab settling: the app
  // prepares its columns' sort keys in idle slices meanwhile).
  await sleep(KEY_WAIT);
  const out = { label, rows, keys: [], frames: [] };
  // PROFILE_CLICKS=1: a CPU profile of the page over each action (a named dist says
  // which functions), summarised, in $ARTIFACTS.
  const clicks = PROFILE_CLICKS ? await context.newCDPSession(page) : null;
  if (clicks) {
    await clicks.send('Profiler.enable');
    await clicks.send('Profiler.setSamplingInterval', { interval: 200 });
  }
  for (const [n, action] of KEY_ACTIONS.entries()) {
    if (clicks) await clicks.send('Profiler.start');
    const r = await page.evaluate(keystroke, [action, KEY_SETTLE]);
    if (clicks) summariseProfile((await clicks.send('Profiler.stop')).profile, `keys-${n}-${action.replace(/\W+/g, '-')}-${label.replace(/\W+/g, '-')}`);
    log(`keys ${label} ${action}: ${JSON.stringify(r)}`);
    out.keys.push({ action, ...r });
    await sleep(500);
  }
  for (const [i, speed] of [0, 0, 5600, 5600].entries()) {
    if (!speed) await page.evaluate(() => { const s = document.getElementById('scroller'); s.scrollTop = s.scrollHeight / 2; });
    await sleep(1000);
    // PROFILE_KEYS=1: a CPU profile of the page over the first still frames run (a dist
    // whose wasm kept its names says which functions), summarised, in $ARTIFACTS.
    // PROFILE_KEYS=scroll: the first scrolling run instead.
    const cdp = PROFILE_KEYS && i === (env.PROFILE_KEYS === 'scroll' ? 2 : 0) ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    }
    const r = await frameRun(page, FRAME_SECS, speed);
    if (cdp) summariseProfile((await cdp.send('Profiler.stop')).profile, `keys-${speed ? 'scrolling' : 'still'}-${label.replace(/\W+/g, '-')}`);
    log(`keys ${label} frames ${speed ? `scrolling ${speed} px/s` : 'still'}: ${JSON.stringify(r)}`);
    out.frames.push({ mode: speed ? `scrolling ${speed} px/s` : 'still', ...r });
  }
  failOnProblems(problems, `app (keys, ${label})`);
  await context.close();
  return out;
}

// -------------------------------------------------------------------------------
const browser = await launch();
const out = { when: new Date().toISOString(), pods: PODS, churn: CHURN };
const lines = [];
try {
  if (ONLY.has('decode')) {
    const r = await decodeBench(browser);
    out.decode = r;
    lines.push(`Decode + apply, same page, ${(r.bytes / 1e6).toFixed(1)} MB watch stream (${r.events} events), ${r.chunk / 1024} KiB chunks, medians of ${r.runs} interleaved runs after a warm-up:`, '');
    lines.push('| decode + apply (Chromium) | median ms | MB/s | events/s | kubelive speedup | runs (ms) |', '|---|---:|---:|---:|---:|---|');
    for (const row of r.rows) {
      lines.push(`| ${row.name} | ${row.ms.toFixed(0)} | ${row.mbps.toFixed(0)} | ${Math.round(row.eventsPerSec).toLocaleString('en')} | ${(row.ms / r.rows[0].ms).toFixed(2)}x | ${spread(row.runs)} |`);
    }
    lines.push('');
  }
  if (ONLY.has('sync')) {
    const cluster = await startCluster(PODS, 0);
    try {
      const runs = [];
      const oneAtATime = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await syncOnce(browser, cluster, false, PROFILE_SYNC && i === 0 ? 'sync-list' : null);
        log(`sync ${i + 1}/${RUNS}: ${JSON.stringify(r)}`);
        runs.push(r);
        if (AB_PIPELINE) {
          const b = await syncOnce(browser, cluster, false, null, false);
          log(`sync, pages one at a time ${i + 1}/${RUNS}: ${JSON.stringify(b)}`);
          oneAtATime.push(b.synced);
        }
      }
      out.sync = runs;
      out.syncOneAtATime = oneAtATime;
      const col = (f) => runs.map(f);
      const firstRows = col((r) => r.rows - r.firstPageEnd);
      const firstPainted = col((r) => r.rowsPainted - r.firstPageEnd);
      const synced = col((r) => r.synced);
      const firstPage = col((r) => r.firstPageEnd);
      lines.push(`${PODS.toLocaleString('en')} pods through kubectl proxy (list-then-watch, pages from 500 growing, ${runs[0].pages} pages), fresh context per run, medians of ${RUNS}:`, '');
      lines.push('| measure | median ms | min..max |', '|---|---:|---|');
      lines.push(`| navigation -> first LIST page fully arrived | ${median(firstPage).toFixed(0)} | ${spread(firstPage)} |`);
      lines.push(`| first page arrived -> first rows in the DOM | ${median(firstRows).toFixed(0)} | ${spread(firstRows)} |`);
      lines.push(`| first page arrived -> first rows painted | ${median(firstPainted).toFixed(0)} | ${spread(firstPainted)} |`);
      const rowsFrame = col((r) => r.rowsFrame ?? NaN);
      lines.push(`| the app's work in the render that first held rows (\`kubelive:frame\`) | ${median(rowsFrame).toFixed(0)} | ${spread(rowsFrame)} |`);
      lines.push(`| navigation -> Synced (${PODS.toLocaleString('en')} objects) | ${median(synced).toFixed(0)} | ${spread(synced)} |`);
      if (AB_PIPELINE) {
        lines.push(`| navigation -> Synced, pages one at a time (\`&pipeline=0\`) | ${median(oneAtATime).toFixed(0)} | ${spread(oneAtATime)} |`);
      }
      const streamed = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await syncOnce(browser, cluster, true, PROFILE_SYNC && i === 0 ? 'sync-stream' : null);
        log(`sync (streaming list) ${i + 1}/${RUNS}: ${JSON.stringify(r)}`);
        streamed.push(r);
      }
      out.syncStreaming = streamed;
      const streamedMs = streamed.map((r) => r.synced);
      lines.push(`| navigation -> Synced, streaming list (\`#r=v1/pods&stream=1\`) | ${median(streamedMs).toFixed(0)} | ${spread(streamedMs)} |`);
      const cpuRow = (what, rs, f) => `| ${what} | ${(1000 * median(rs.map(f))).toFixed(0)} | ${spread(rs.map(f), (x) => (1000 * x).toFixed(0))} |`;
      lines.push(cpuRow('CPU ms of kubelive-sim until Synced, list-then-watch', runs, (r) => r.simCpu));
      lines.push(cpuRow('CPU ms of kubectl proxy until Synced, list-then-watch', runs, (r) => r.proxyCpu));
      lines.push(cpuRow('CPU ms of kubelive-sim until Synced, streaming list', streamed, (r) => r.simCpu));
      lines.push(cpuRow('CPU ms of kubectl proxy until Synced, streaming list', streamed, (r) => r.proxyCpu));
      lines.push('');
    } finally {
      cluster.stop();
    }
  }
  if (ONLY.has('syncab')) {
    // The same syncs for two builds, BEFORE (a dist directory) and DIST, alternating
    // run by run against one sim (each build behind its own kubectl proxy). BEFORE=a,b:
    // several builds to compare with, all in turn.
    if (!BEFORE) throw new Error('syncab: BEFORE (the dist directory of the build to compare with) is needed');
    const befores = (env.BEFORE || '').split(',').filter(Boolean).map((d) => resolve(d));
    const cluster = await startCluster(PODS, 0);
    // BEFORE_SIM_BIN: the (first) before build is served by its own sim (another build
    // of the sim), so that a comparison covers the server's side too; else all share one.
    const beforeSim = env.BEFORE_SIM_BIN
      ? await startSim({ simBin: env.BEFORE_SIM_BIN, kubectl: KUBECTL, dist: befores[0], objects: PODS, churn: 0, log })
      : null;
    try {
      const builds = [];
      for (const [i, dir] of befores.entries()) {
        const name = befores.length === 1 ? 'before' : `before${i + 1}`;
        builds.push([name, dir, i === 0 && beforeSim ? beforeSim : await cluster.proxyFor(dir)]);
      }
      builds.push(['after', DIST, cluster]);
      const res = {};
      // SYNCAB_MODES: list, stream or both (list,stream).
      const modes = (env.SYNCAB_MODES || 'list,stream').split(',');
      for (const streaming of [false, true].filter((st) => modes.includes(st ? 'stream' : 'list'))) {
        for (let i = 0; i < RUNS; i++) {
          // Each run starts with another build (two builds: before, after; after, before; ...).
          const turn = builds.map((_, k) => builds[(k + i) % builds.length]);
          for (const [name, , proxy] of turn) {
            const r = NO_DEVTOOLS ? await syncOnceNoDevtools(proxy, streaming) : await syncOnce(browser, proxy, streaming);
            const mode = streaming ? 'streaming list' : 'list-then-watch';
            log(`syncab ${name} ${mode} ${i + 1}/${RUNS}: ${JSON.stringify(r)}`);
            ((res[mode] ||= {})[name] ||= []).push(r);
          }
        }
      }
      out.syncab = res;
      lines.push(`${PODS.toLocaleString('en')} pods through kubectl proxy, navigation -> Synced, ${builds.map(([name, dir]) => `${name} = ${dir}`).join(', ')}${env.BEFORE_SIM_BIN ? ` (${builds[0][0]} served by ${env.BEFORE_SIM_BIN})` : ''}, in turns, ${NO_DEVTOOLS ? 'a Chromium without Playwright (no DevTools Network domain) per run' : 'Playwright, a fresh context per run'}, medians of ${RUNS} (min..max):`, '');
      lines.push(`| mode | build | navigation -> Synced ms | / ${builds[0][0]} | navigation -> first rows painted ms | first page arrived -> first rows in the DOM; painted (min..max); the app work in that render, ms | sim CPU ms | proxy CPU ms | renderer CPU ms${NO_DEVTOOLS ? ' (of it the page\'s main thread)' : ''} |`, '|---|---|---:|---:|---|---|---:|---:|---:|');
      for (const [mode, by] of Object.entries(res)) {
        const m = (name, f) => median(by[name].map(f));
        // After the first LIST page's last byte (resource timing): list-then-watch only.
        const afterPage = (name) => {
          const rs = by[name].filter((r) => r.firstPageEnd);
          if (!rs.length) return '-';
          const dom = rs.map((r) => r.rows - r.firstPageEnd);
          const shown = rs.map((r) => r.rowsPainted - r.firstPageEnd);
          const work = rs.map((r) => r.rowsFrame ?? NaN);
          return `${median(dom).toFixed(0)}; ${median(shown).toFixed(0)} (${spread(shown)}); ${median(work).toFixed(0)}`;
        };
        for (const [name] of builds) {
          const synced = by[name].map((r) => r.synced);
          const painted = by[name].map((r) => r.rowsPainted);
          lines.push(`| ${mode} | ${name} | ${median(synced).toFixed(0)} (${spread(synced)}) | ${(median(synced) / m(builds[0][0], (r) => r.synced)).toFixed(2)} | ${median(painted).toFixed(0)} (${spread(painted)}) | ${afterPage(name)} | ${(1000 * m(name, (r) => r.simCpu)).toFixed(0)} | ${(1000 * m(name, (r) => r.proxyCpu)).toFixed(0)} | ${NO_DEVTOOLS ? `${(1000 * m(name, (r) => r.browserCpu.renderer)).toFixed(0)} (${(1000 * m(name, (r) => r.browserCpu['renderer/chromium'])).toFixed(0)})` : `${(1000 * m(name, (r) => r.rendererCpu)).toFixed(0)} (${spread(by[name].map((r) => r.rendererCpu), (x) => (1000 * x).toFixed(0))})`} |`);
        }
      }
      lines.push('');
    } finally {
      cluster.stop();
      beforeSim?.stop();
    }
  }
  if (ONLY.has('store')) {
    const cluster = await startCluster(PODS, 0);
    try {
      out.store = {};
      lines.push(`Driver + store without the app (web/bench/sync.html), ${PODS.toLocaleString('en')} pods through kubectl proxy, fresh context per run, medians of ${STORE_RUNS} (min..max):`, '');
      lines.push('| mode | navigation -> Synced ms | wasm memory MB | store heap MB | JS heap used MB (after GC) | store bytes/object |', '|---|---:|---:|---:|---:|---:|');
      for (const mode of STORE_MODES) {
        const runs = [];
        for (let i = 0; i < STORE_RUNS; i++) {
          const r = await storeSyncOnce(browser, cluster.base, mode);
          log(`store ${mode} ${i + 1}/${STORE_RUNS}: ${JSON.stringify(r)}`);
          runs.push(r);
        }
        out.store[mode] = runs;
        const col = (f) => runs.map(f);
        const mb = (x) => (x / 1e6).toFixed(0);
        const synced = col((r) => r.syncedMs);
        lines.push(`| ${mode} | ${median(synced).toFixed(0)} (${spread(synced)}) | ${mb(median(col((r) => r.wasmBytes)))} | ${mb(median(col((r) => r.storeBytes)))} | ${mb(median(col((r) => r.jsHeapUsed)))} | ${(median(col((r) => r.storeBytes)) / PODS).toFixed(0)} |`);
      }
      lines.push('');
    } finally {
      cluster.stop();
    }
  }
  if (ONLY.has('keys')) {
    // BEFORE: another build's dist, served by a second kubectl proxy over the same
    // sim; the builds take turns (KEY_ROUNDS times each).
    const cluster = await startCluster(PODS, CHURN);
    try {
      const builds = [['this build', cluster.base]];
      // BEFORE=a,b,...: several other builds, each behind its own proxy, all in turn.
      const others = (env.BEFORE || '').split(',').filter(Boolean);
      for (const dir of others) {
        const label = others.length > 1 ? `before ${dir.split('/').filter(Boolean).pop()}` : 'before';
        builds.push([label, (await cluster.proxyFor(resolve(dir))).base]);
      }
      const rounds = [];
      for (let i = 0; i < Number(env.KEY_ROUNDS || 1); i++) {
        for (const [label, base] of builds) rounds.push(await keysOnce(browser, base, label));
      }
      out.keys = rounds;
      const f = (x, n = 0) => (x === null || !Number.isFinite(x) ? 'n/a' : x.toFixed(n));
      lines.push(`Keystroke -> painted at ${rounds[0].rows.toLocaleString('en')} rows, sim churn ${CHURN}/s: event timestamp to the frame after the first row changed in the DOM; long animation frames (> 50 ms) from the event to ${KEY_SETTLE} ms after:`, '');
      lines.push(`| action | ${rounds.map((r) => r.label).join(' | ')} |`, `|---|${rounds.map(() => '---:').join('|')}|`);
      KEY_ACTIONS.forEach((a, i) => lines.push(`| ${a} | ${rounds.map((r) => { const k = r.keys[i]; return `${f(k.ms)} ms (app ${f(k.firstWork)} ms; LoAF ${k.long.length}, max ${f(k.maxLong)} ms${k.sortedMs != null ? `; in order ${f(k.sortedMs)} ms` : ''}${k.busyAtEnd ? '; still busy' : ''})`; }).join(' | ')} |`));
      lines.push('');
      lines.push('| frames | build | frames / run | p50 ms | p95 ms | max ms | LoAF > 50 / > 100 ms | longest LoAF ms | app work p50 / p95 ms | changes/s |', '|---|---|---:|---:|---:|---:|---:|---:|---|---:|');
      for (const r of rounds) for (const fr of r.frames) lines.push(`| ${fr.mode} | ${r.label} | ${fr.frames} | ${f(fr.p50, 1)} | ${f(fr.p95, 1)} | ${f(fr.max, 1)} | ${fr.long50} / ${fr.long100} | ${f(fr.maxLong)} | ${f(fr.workP50, 1)} / ${f(fr.workP95, 1)} | ${f(fr.changes)} |`);
      lines.push('');
    } finally {
      cluster.stop();
    }
  }
  if (ONLY.has('frames')) {
    const cluster = await startCluster(PODS, CHURN);
    try {
      const runs = await frames(browser, cluster.base);
      if (SCROLL_RUNS) runs.push(...await frames(browser, cluster.base, true));
      if (SCROLL_RUNS && env.ROWS_FLOOR !== '0') runs.push(...await frames(browser, cluster.base, 'rows'));
      out.frames = runs;
      lines.push(`Frame times, ${runs[0].rows.toLocaleString('en')} rows, sim churn ${CHURN}/s (changes seen ${spread(runs.map((r) => r.changesPerSec))}/s), ${FRAME_SECS} s of requestAnimationFrame deltas per run: ${FRAME_RUNS} still in the middle of the table, ${SCROLL_RUNS} scrolling down (synthesized mouse scroll gestures at ${SCROLL_SPEEDS.join(' and ')} px/s):`, '');
      lines.push('| run | frames | p50 ms | p95 ms | max ms | deltas > 25 ms | long animation frames (> 50 ms) | app renders/s | app work p50 / p95 / max ms |', '|---|---:|---:|---:|---:|---:|---:|---:|---|');
      const row = (name, f) => `| ${name} | ${f((r) => r.frames, 0)} | ${f((r) => r.p50, 1)} | ${f((r) => r.p95, 1)} | ${f((r) => r.max, 1)} | ${f((r) => r.over16, 0)} | ${runs[0].longFrames === null ? 'n/a' : f((r) => r.longFrames, 0)} | ${f((r) => r.renders / FRAME_SECS, 0)} | ${f((r) => r.workP50, 2)} / ${f((r) => r.workP95, 2)} / ${f((r) => r.workMax, 1)} |`;
      const fmt = (x, n) => (Number.isFinite(x) ? x.toFixed(n) : 'n/a');
      runs.forEach((r, i) => lines.push(row(`${i + 1} (${r.mode})`, (g, n) => fmt(g(r), n))));
      const still = runs.filter((r) => r.mode === 'still');
      if (still.length) lines.push(row('median (still)', (g, n) => fmt(median(still.map(g)), n)));
      lines.push('');
    } finally {
      cluster.stop();
    }
  }
} finally {
  await browser.close();
}
const md = lines.join('\n');
console.log(md);
try {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, 'browser-bench.md'), md + '\n');
  writeFileSync(join(ARTIFACTS, 'browser-bench.json'), JSON.stringify(out, null, 1));
} catch (e) {
  log(`cannot write artifacts: ${e}`);
}
process.exit(0);
