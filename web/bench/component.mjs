// `<kubelive-table>` against the app on the same view, in the same run: PODS pods
// churning CHURN changes/s in one sim behind `kubectl proxy --www DIST`, each target in
// a fresh context, in turns (ROUNDS): navigation -> synced; then filter keystrokes and
// sort clicks (ACTIONS: `type:TEXT` sets the filter, `sort:COLUMN` clicks a header)
// timed from the event to the frame after the first rows changed, with the long
// animation frames (> 50 ms) from the event to SETTLE ms after it; then frames held
// still mid-table and scrolling at 5,600 px/s (FRAME_SECS of rAF deltas each: p50, p95,
// long animation frames).
//
// The app is `#r=v1/pods` (its own engine on the page); the component is one
// `<kubelive-table resource="pods" shared>` filling the page (its engine in kubelive's
// worker, the page drawing the windows it asks for).
//
//   cargo xtask dist && cargo build --release -p kubelive-sim
//   cd web && SIM_BIN=../target/release/kubelive-sim DIST=../dist PODS=100000 node bench/component.mjs
//
// PODS (100000), CHURN (1000), ROUNDS (1), TARGETS (app,component), FRAME_SECS (10),
// SETTLE (2500 ms), ACTIONS (type:x,type:xq,type:,sort:name,sort:restarts,sort:age,sort:name).
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, until, ARTIFACTS } from '../tests/lib.mjs';
import { startCluster, sleep } from './cluster.mjs';

const env = process.env;
const PODS = Number(env.PODS || 100000);
const CHURN = Number(env.CHURN || 1000);
const ROUNDS = Number(env.ROUNDS || 1);
const TARGETS = (env.TARGETS || 'app,component').split(',');
const FRAME_SECS = Number(env.FRAME_SECS || 10);
const SETTLE = Number(env.SETTLE || 2500);
const ACTIONS = (env.ACTIONS || 'type:x,type:xq,type:,sort:name,sort:restarts,sort:age,sort:name').split(',');
const log = (...a) => console.log(...a);
// PROFILE=1: the page's CPU profile over each frames run, its top functions by self time.
const PROFILE = env.PROFILE === '1';

function summarise(profile, what) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const k = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    self.set(k, (self.get(k) || 0) + (profile.timeDeltas[i] || 0));
  });
  log(`profile, ${what}:`);
  for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) log(`  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}

const PAGE = `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; connect-src 'self'; worker-src 'self'">
<title>component bench</title>
<style>body { margin: 0 } kubelive-table { --kubelive-height: calc(100vh - 70px) }</style>
<kubelive-table resource="pods" shared></kubelive-table>
<script type="module">await import('/ui/npm/component.js');</script>`;

/**
 * In the page: what each target shows, as the measures need it. `shown()` changes
 * when the first rows or their number do; `act(action)` fires the event and returns
 * its timestamp; `version()` is the view's resourceVersion.
 */
function probe(target) {
  if (target === 'app') {
    const scroller = document.getElementById('scroller');
    return {
      scroller,
      shown: () => {
        const first = [...scroller.querySelectorAll('.row')].sort((a, b) => a.ariaRowIndex - b.ariaRowIndex)[0];
        return `${first?.dataset.key} ${document.getElementById('shown-count').textContent}`;
      },
      act: (action) => {
        let ev;
        if (action.startsWith('type:')) {
          const box = document.getElementById('filter');
          box.value = action.slice(5);
          ev = new InputEvent('input', { bubbles: true, data: action.slice(-1), inputType: 'insertText' });
          box.dispatchEvent(ev);
        } else {
          ev = new MouseEvent('click', { bubbles: true });
          document.querySelector(`.thead [data-col="${action.slice(5)}"]`).dispatchEvent(ev);
        }
        return ev.timeStamp;
      },
      version: () => Number(document.getElementById('status').dataset.rv),
    };
  }
  const el = document.querySelector('kubelive-table');
  const root = el.shadowRoot;
  const scroller = root.querySelector('[part~=body]');
  return {
    scroller,
    shown: () => `${root.querySelector('[part~=rows]').firstElementChild?.dataset.key} ${root.querySelector('[part~=spacer]').style.height}`,
    act: (action) => {
      const t = performance.now();
      if (action.startsWith('type:')) el.filter = action.slice(5);
      else root.querySelector(`[part~=header] [data-id="${action.slice(5)}"]`).dispatchEvent(new MouseEvent('click', { bubbles: true }));
      return t;
    },
    version: () => Number(el.watcher?.status().resourceVersion ?? 0),
  };
}

/** In the page: one action, from its event to the frame after the rows changed. */
function action([target, action, settle, probeSrc]) {
  const p = new Function(`return (${probeSrc})`)()(target);
  return new Promise((done) => {
    const long = [];
    const lo = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => e.duration)));
    lo.observe({ type: 'long-animation-frame' });
    const before = p.shown();
    let t0 = null;
    let painted = null;
    const finish = () => setTimeout(() => {
      lo.disconnect();
      done({ ms: painted === null ? null : painted - t0, long: long.filter((d) => d > 50).map(Math.round), after: p.shown() });
    }, settle);
    // Rows are redrawn in a frame: checked each frame, not on every mutation.
    const check = () => {
      if (p.shown() !== before) {
        requestAnimationFrame(() => setTimeout(() => { painted = performance.now(); finish(); }, 0));
      } else if (performance.now() - t0 > 20000) finish();
      else requestAnimationFrame(check);
    };
    t0 = p.act(action);
    requestAnimationFrame(check);
  });
}

/** In the page: `secs` of rAF deltas, still or scrolling. */
function frames([target, secs, probeSrc]) {
  const p = new Function(`return (${probeSrc})`)()(target);
  return new Promise((done) => {
    const long = [];
    const lo = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => e.duration)));
    lo.observe({ type: 'long-animation-frame' });
    const deltas = [];
    let last = null;
    const t0 = performance.now();
    const v0 = p.version();
    const step = (t) => {
      if (last !== null) deltas.push(t - last);
      last = t;
      if (t - t0 < secs * 1000) requestAnimationFrame(step);
      else {
        lo.disconnect();
        done({ deltas, long: long.filter((d) => d > 50).map(Math.round), changes: (p.version() - v0) / secs });
      }
    };
    requestAnimationFrame(step);
  });
}

const q = (xs, f) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(f * s.length))];
};

async function measure(browser, base, target) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  const t0 = Date.now();
  if (target === 'app') {
    await page.goto(`${base}/ui/#r=v1/pods`);
    await until('the app synced', () => page.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 15 * 60 * 1000, 250);
  } else {
    const url = `${base}/ui/bench-component.html`;
    await page.route(url, (r) => r.fulfill({ contentType: 'text/html', body: PAGE }));
    await page.goto(url);
    await until('the table synced', () => page.evaluate(() => {
      const el = document.querySelector('kubelive-table');
      return Boolean(el?.watcher?.status().synced && el.shadowRoot.querySelector('[part~=row]'));
    }), 15 * 60 * 1000, 250);
  }
  const out = { target, syncedMs: Date.now() - t0, actions: [], frames: [] };
  log(`${target}: synced ${PODS} pods in ${(out.syncedMs / 1000).toFixed(2)} s`);
  await sleep(3000);
  const src = probe.toString();
  for (const a of ACTIONS) {
    const r = await page.evaluate(action, [target, a, SETTLE, src]);
    log(`${target} ${a}: ${r.ms === null ? 'no change' : `${r.ms.toFixed(0)} ms`} to the frame after the rows changed; long frames ${JSON.stringify(r.long)}`);
    out.actions.push({ action: a, ...r });
    await sleep(500);
  }
  const cdp = await context.newCDPSession(page);
  for (const speed of [0, 5600]) {
    await page.evaluate(([t, s]) => {
      const { scroller } = new Function(`return (${s})`)()(t);
      scroller.scrollTop = scroller.scrollHeight / 2;
    }, [target, src]);
    await sleep(1000);
    const gesture = speed
      ? cdp.send('Input.synthesizeScrollGesture', { x: 700, y: 450, yDistance: -speed * FRAME_SECS, speed, gestureSourceType: 'mouse', preventFling: true })
      : null;
    if (PROFILE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    }
    const r = await page.evaluate(frames, [target, FRAME_SECS, src]);
    if (gesture) await gesture;
    if (PROFILE) summarise((await cdp.send('Profiler.stop')).profile, `${target} ${speed ? 'scrolling' : 'still'}`);
    const f = { mode: speed ? `scrolling ${speed} px/s` : 'still', frames: r.deltas.length, p50: q(r.deltas, 0.5), p95: q(r.deltas, 0.95), max: Math.max(...r.deltas), long: r.long, changes: r.changes };
    log(`${target} frames ${f.mode}: p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, max ${f.max.toFixed(1)} ms, long frames ${JSON.stringify(f.long)}, ${f.changes.toFixed(0)} changes/s`);
    out.frames.push(f);
  }
  if (problems.length) throw new Error(`${target}: page errors: ${problems.join('; ')}`);
  await context.close();
  return out;
}

const cluster = await startCluster({ simBin: env.SIM_BIN, dist: env.DIST || '../dist', objects: PODS, churn: CHURN, log });
const browser = await launch();
const results = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of TARGETS) results.push(await measure(browser, cluster.base, target));
  }
} finally {
  await browser.close();
  cluster.stop();
}
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(join(ARTIFACTS, `component-bench-${PODS}.json`), JSON.stringify({ when: new Date().toISOString(), pods: PODS, churn: CHURN, results }, null, 2));
