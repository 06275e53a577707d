// Cross-engine figures (issue 30): Chromium, Firefox and WebKit side by side, in one
// run, through one WebDriver client and one method (so the three are comparable with
// each other; Chromium's own figures in BENCHMARKS.md come from web/bench/run.mjs,
// over CDP, and differ in method):
//
//  * navigation -> Synced for PODS pods (list-then-watch) through the real kubectl
//    proxy: the page's own clock (performance.now(), from the navigation's start) when
//    the status bar first says Synced, seen by a MutationObserver that `marks.js` (the
//    first script of the page) installs before the app loads;
//  * frames, with CHURN changes/s, scrolled to the middle of the table: the
//    requestAnimationFrame deltas over FRAME_SECS while still, then while scrolling
//    SPEED px/s (the page's script moves scrollTop by speed x the frame's time, every
//    frame: a programmatic scroll, the same in every engine, not a wheel's gesture);
//    and the same scrolling over a static page as tall, no app: the engine's floor here
//    (WebKitGTK draws into Xvfb with no GPU; the others are headless); with the app's
//    own work per frame (its `kubelive:frame` measures), logged per run.
//
// By hand (the sim built in release, dist built):
//   SIM_BIN=target/release/kubelive-sim node web/tests/xb/bench.mjs
// Env: SIM_BIN (required), DIST, KUBECTL, PODS (100000), CHURN (1000), RUNS (3),
// FRAME_SECS (10), SPEED (5600), ENGINES (chromium,firefox,webkit), SETTLE_MS (3000).
import { writeFile } from 'node:fs/promises';
import { until } from '../lib.mjs';
import { median, sleep, startCluster } from '../../bench/cluster.mjs';
import { Browser } from './webdriver.mjs';
import { DIST, removePages, writePages } from './pages.mjs';

const env = process.env;
const PODS = Number(env.PODS || 100000);
const CHURN = Number(env.CHURN || 1000);
const RUNS = Number(env.RUNS || 3);
const FRAME_SECS = Number(env.FRAME_SECS || 10);
const SPEED = Number(env.SPEED || 5600);
const SETTLE_MS = Number(env.SETTLE_MS || 3000);
const ENGINES = (env.ENGINES || 'chromium,firefox,webkit').split(',');
const ARTIFACTS = env.ARTIFACTS || new URL('../../../artifacts', import.meta.url).pathname;

const log = (...a) => console.error(...a);

/** `secs` of rAF deltas (ms); scrolling the table `speed` px/s meanwhile if given. */
function frameRun({ secs, speed }) {
  return new Promise((done) => {
    const s = document.getElementById('scroller');
    // The app's own work per frame (its `kubelive:frame` User Timing measures, ms).
    const work = [];
    const observer = new PerformanceObserver((l) => work.push(...l.getEntries().filter((e) => e.name === 'kubelive:frame').map((e) => e.duration)));
    observer.observe({ type: 'measure' });
    const deltas = [];
    let last = null;
    const t0 = performance.now();
    const rv0 = Number(document.getElementById('status').dataset.rv);
    const step = (t) => {
      if (last !== null) {
        deltas.push(t - last);
        if (speed) s.scrollTop += (speed * (t - last)) / 1000;
      }
      last = t;
      if (t - t0 < secs * 1000) requestAnimationFrame(step);
      else {
        observer.disconnect();
        done({ deltas, work, changes: (Number(document.getElementById('status').dataset.rv) - rv0) / secs, scrollTop: s.scrollTop });
      }
    };
    requestAnimationFrame(step);
  });
}

function quantiles(deltas) {
  const d = [...deltas].sort((a, b) => a - b);
  const q = (p) => d[Math.min(d.length - 1, Math.floor(p * d.length))];
  return { frames: d.length, p50: q(0.5), p95: q(0.95), max: d[d.length - 1] };
}

async function oneRun(name, base) {
  const b = await Browser.start(name, { width: 1400, height: 900 });
  try {
    // A fresh browser starts its own work in its first seconds: let it settle.
    await b.goto(`${base}/ui/xb/blank.html`);
    await sleep(SETTLE_MS);
    await b.goto(`${base}/ui/xb/app.html#r=v1/pods`);
    const marks = await until('Synced', () => b.evaluate(() => window.__xbMarks?.synced != null && window.__xbMarks), 10 * 60 * 1000, 200);
    const total = await b.evaluate(() => Number(document.getElementById('total-count').textContent));
    // The churn creates and deletes pods: the count wanders a little around PODS.
    if (Math.abs(total - PODS) > PODS * 0.05) throw new Error(`${name}: synced with ${total} objects, expected about ${PODS}`);
    await b.evaluate(() => {
      const s = document.getElementById('scroller');
      s.scrollTop = s.scrollHeight / 2 - s.clientHeight / 2;
    });
    await sleep(3000);
    const still = await b.evaluate(frameRun, { secs: FRAME_SECS, speed: 0 });
    const scrolling = await b.evaluate(frameRun, { secs: FRAME_SECS, speed: SPEED });
    // The floor: the same scrolling over a static page as tall (no app, no text), in the
    // same browser and window while the sim churns: what this engine does here at all.
    await b.goto(`${base}/ui/xb/blank.html`);
    await b.evaluate((height) => {
      document.body.innerHTML = `<div id="status" data-rv="0"></div><div id="scroller" style="height:800px;overflow:auto"><div style="height:${height}px"></div></div>`;
    }, PODS * 28);
    await sleep(1000);
    const floor = await b.evaluate(frameRun, { secs: FRAME_SECS, speed: SPEED });
    return {
      engine: b.version,
      synced: marks.synced,
      rows: marks.rows,
      still: { ...quantiles(still.deltas), changes: still.changes, work: quantiles(still.work) },
      scrolling: { ...quantiles(scrolling.deltas), changes: scrolling.changes, work: quantiles(scrolling.work) },
      floor: quantiles(floor.deltas),
    };
  } finally {
    await b.close();
  }
}

const cluster = await startCluster({ simBin: env.SIM_BIN, kubectl: env.KUBECTL, dist: DIST, objects: PODS, churn: CHURN, log });
await writePages();
const results = {};
try {
  // Engines in turns, run by run: the machine's drift falls on all three alike.
  for (let run = 1; run <= RUNS; run++) {
    for (const name of ENGINES) {
      const r = await oneRun(name, cluster.base);
      const q = (x) => `${x.frames} frames, ${x.p50.toFixed(1)}/${x.p95.toFixed(1)}/${x.max.toFixed(1)} ms`;
      const w = (x) => `the app's work ${x.work.frames} measures, p50/p95 ${x.work.p50?.toFixed(1)}/${x.work.p95?.toFixed(1)} ms`;
      log(`${name} run ${run}: Synced ${r.synced.toFixed(0)} ms; still ${q(r.still)} (${r.still.changes.toFixed(0)} changes/s; ${w(r.still)}); scrolling ${q(r.scrolling)} (${w(r.scrolling)}); static page scrolling ${q(r.floor)}`);
      (results[name] ||= []).push(r);
    }
  }
} finally {
  await removePages();
  cluster.stop();
}
const f = (x) => x.toFixed(1);
const lines = [
  `${PODS.toLocaleString('en')} pods, ${CHURN} changes/s, ${RUNS} runs per engine in turns (medians; each run a fresh browser), frames over ${FRAME_SECS} s:`,
  '',
  `| engine | navigation -> Synced (ms) | first rows (ms) | still: frames, p50 / p95 / max (ms) | scrolling ${SPEED} px/s: frames, p50 / p95 / max (ms) | a static page scrolling, no app |`,
  '|---|---:|---:|---|---|---|',
];
for (const [name, rs] of Object.entries(results)) {
  const m = (get) => median(rs.map(get));
  lines.push(`| ${rs[0].engine} | ${m((r) => r.synced).toFixed(0)} (${rs.map((r) => r.synced.toFixed(0)).join(', ')}) | ${m((r) => r.rows).toFixed(0)} `
    + `| ${m((r) => r.still.frames).toFixed(0)}, ${f(m((r) => r.still.p50))} / ${f(m((r) => r.still.p95))} / ${f(m((r) => r.still.max))} `
    + `| ${m((r) => r.scrolling.frames).toFixed(0)}, ${f(m((r) => r.scrolling.p50))} / ${f(m((r) => r.scrolling.p95))} / ${f(m((r) => r.scrolling.max))} `
    + `| ${m((r) => r.floor.frames).toFixed(0)}, ${f(m((r) => r.floor.p50))} / ${f(m((r) => r.floor.p95))} / ${f(m((r) => r.floor.max))} |`);
}
console.log(lines.join('\n'));
await writeFile(`${ARTIFACTS}/xb-bench.json`, JSON.stringify(results, null, 1)).catch(() => {});
process.exit(0);
