// Synced for PODS pods with a streaming list (`stream=1` in the app,
// `--streaming-list` in the CLI) against kubelive-sim as kube-apiserver 1.36 and 1.37,
// each behind its own `kubectl proxy --www DIST`, the runs alternating between them;
// the LIST requests each sync made, from the sim's /metrics (apiserver_request_total,
// verb LIST, resource pods) read before and after.
//
// `cargo xtask bench --only releases [--pods N] [--runs N]` builds what it needs and runs
// this with SIM_BIN, CLI_BIN, DIST (required); PODS (100000), RUNS (3), SETTLE_MS (3000),
// DURATION (15), ONLY (browser,cli: a subset).
import { spawn } from 'node:child_process';
import { launch, openPage, until } from '../tests/lib.mjs';
import { startCluster, median, sleep } from './cluster.mjs';

const env = process.env;
const PODS = Number(env.PODS || 100000);
const RUNS = Number(env.RUNS || 3);
const SETTLE_MS = Number(env.SETTLE_MS || 3000);
const ONLY = new Set((env.ONLY || 'browser,cli').split(','));
const log = (s) => console.error(`[releases] ${s}`);

async function lists(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n')) {
    const m = /^apiserver_request_total\{verb="LIST",resource="pods",code="\d+"\} (\d+)$/.exec(line);
    if (m) n += Number(m[1]);
  }
  return n;
}

async function browserSync(browser, base) {
  const { context, page, problems } = await openPage(browser);
  await page.goto('about:blank');
  await sleep(SETTLE_MS);
  const l0 = await lists(base);
  const t0 = Date.now();
  await page.goto(`${base}/ui/#r=v1/pods&stream=1`);
  const s = await until('Synced', () => page.evaluate(() => {
    const st = document.getElementById('status');
    return st && st.dataset.synced === 'true' && st.dataset.phase === 'watching'
      && { total: Number(document.getElementById('total-count').textContent), text: st.innerText.replace(/\s+/g, ' ') };
  }), 600000, 20);
  const ms = Date.now() - t0;
  const l1 = await lists(base);
  await context.close();
  if (s.total !== PODS) throw new Error(`browser synced ${s.total}, not ${PODS}`);
  if (problems.errors.length) throw new Error(problems.errors.join(' | '));
  return { ms, lists: l1 - l0, status: s.text };
}

/** `/usr/bin/time -v kubelive watch pods -A --streaming-list --duration DURATION` (15): spawn ->
 * its "synced N objects" line (its own clock), LISTs, max RSS and CPU from time -v. */
async function cliSync(base) {
  const l0 = await lists(base);
  const child = spawn('/usr/bin/time', ['-v', env.CLI_BIN, 'watch', 'pods', '-A', '--server', base,
    '--streaming-list', '--duration', String(env.DURATION || 15)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((r) => child.on('exit', r));
  const l1 = await lists(base);
  const synced = /\[\s*([\d.]+)s\] synced (\d+) objects/.exec(err);
  if (!synced || Number(synced[2]) !== PODS) throw new Error(`kubelive did not sync ${PODS}: ${err.slice(-2000)}`);
  const field = (name) => (new RegExp(`${name}: (.*)`).exec(err) || [])[1];
  return {
    ms: 1000 * Number(synced[1]),
    lists: l1 - l0,
    code,
    maxRssKb: Number(field('Maximum resident set size \\(kbytes\\)')),
    cpuS: Number(field('User time \\(seconds\\)')) + Number(field('System time \\(seconds\\)')),
    fellBack: /streaming list unavailable/.test(err),
  };
}

const clusters = {};
for (const v of ['1.36', '1.37']) {
  clusters[v] = await startCluster({ simBin: env.SIM_BIN, dist: env.DIST, objects: PODS, churn: 0, extra: ['--kube-version', v], log });
}
const browser = await launch();
const out = { browser: { '1.36': [], '1.37': [] }, cli: { '1.36': [], '1.37': [] } };
try {
  for (let i = 0; i < RUNS; i++) {
    for (const v of ONLY.has('browser') ? ['1.36', '1.37'] : []) {
      const r = await browserSync(browser, clusters[v].base);
      log(`browser ${v} run ${i + 1}: ${JSON.stringify(r)}`);
      out.browser[v].push(r);
    }
    for (const v of ONLY.has('cli') ? ['1.36', '1.37'] : []) {
      const r = await cliSync(clusters[v].base);
      log(`cli ${v} run ${i + 1}: ${JSON.stringify(r)}`);
      out.cli[v].push(r);
    }
  }
} finally {
  await browser.close();
  Object.values(clusters).forEach((c) => c.stop());
}
const range = (xs) => `${Math.min(...xs).toFixed(0)}..${Math.max(...xs).toFixed(0)}`;
console.log(`| client | release | Synced ms, median (min..max) of ${RUNS} | LIST requests per sync |`);
console.log('|---|---|---:|---|');
for (const who of ['browser', 'cli'].filter((w) => ONLY.has(w))) {
  for (const v of ['1.36', '1.37']) {
    const rs = out[who][v];
    const ms = rs.map((r) => r.ms);
    console.log(`| ${who === 'browser' ? 'app, `#r=v1/pods&stream=1`' : 'CLI, `--streaming-list`'} | ${v} | ${median(ms).toFixed(0)} (${range(ms)}) | ${rs.map((r) => r.lists).join(', ')} |`);
  }
}
for (const v of ONLY.has('cli') ? ['1.36', '1.37'] : []) {
  const rs = out.cli[v];
  console.log(`CLI ${v}: max RSS ${rs.map((r) => (r.maxRssKb / 1024).toFixed(0)).join(', ')} MiB; CPU s (whole run) ${rs.map((r) => r.cpuS.toFixed(2)).join(', ')}`);
}
console.log(JSON.stringify(out));
