// Compressed lists through `kubectl proxy` (issue 15): the app's time to Synced and
// the bytes its LIST pages cost, for PODS pods (100,000), with the sim gzipping large
// responses as kube-apiserver does (APIResponseCompression, on by default) and with
// `--no-compression`, in alternating fresh browser contexts, RUNS (3) each. Also
// checks that the proxy passes `Content-Encoding: gzip` through to the browser
// (kubectl proxy is a Go reverse proxy: it forwards the browser's Accept-Encoding, so
// Go's transport does not decompress on its behalf).
//
// `cargo xtask bench --only gzip` runs it with everything built; by hand:
//   SIM_BIN=target/release/kubelive-sim DIST=dist node web/bench/gzip.mjs
// Env: DIST, SIM_BIN (required), KUBECTL (kubectl), PODS (100000), RUNS (3),
// STREAM (1: also the streaming list, which is a watch: never compressed), ARTIFACTS.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launch, openPage, until } from '../tests/lib.mjs';
import { median, startCluster } from './cluster.mjs';

const env = process.env;
const here = new URL('.', import.meta.url).pathname;
const DIST = resolve(env.DIST || join(here, '../../dist'));
const SIM_BIN = env.SIM_BIN;
const KUBECTL = env.KUBECTL || 'kubectl';
const PODS = Number(env.PODS || 100000);
const RUNS = Number(env.RUNS || 3);
const ARTIFACTS = env.ARTIFACTS || join(here, '../../artifacts');
const log = (s) => console.error(`[gzip] ${s}`);

/** The sim (compressing or not) behind kubectl proxy serving the dist. */
const cluster = (compression) => startCluster({
  simBin: SIM_BIN,
  kubectl: KUBECTL,
  dist: DIST,
  objects: PODS,
  churn: 0,
  extra: ['--no-leases', ...(compression ? [] : ['--no-compression'])],
  log,
});

/** One fresh page to Synced: its time, and what the pods LIST pages cost. */
async function syncOnce(browser, base, streaming) {
  const { context, page, problems } = await openPage(browser);
  const encodings = new Set();
  page.on('response', (r) => {
    if (/\/api\/v1\/pods\?/.test(r.url())) encodings.add(r.headers()['content-encoding'] || 'identity');
  });
  const t0 = Date.now();
  await page.goto(`${base}/ui/#r=v1/pods${streaming ? '&stream=1' : ''}`);
  await until('Synced', () => page.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 10 * 60 * 1000, 100);
  const r = await page.evaluate(() => {
    const lists = performance.getEntriesByType('resource').filter((e) => /\/api\/v1\/pods\?/.test(e.name));
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      syncedMs: performance.now() - (nav ? nav.startTime : 0),
      requests: lists.length,
      wire: lists.reduce((n, e) => n + e.encodedBodySize, 0),
      decoded: lists.reduce((n, e) => n + e.decodedBodySize, 0),
      total: Number(document.getElementById('total-count')?.textContent),
    };
  });
  r.wallMs = Date.now() - t0;
  r.encodings = [...encodings];
  const errors = [...problems.errors, ...problems.console];
  await context.close();
  if (errors.length) throw new Error(`page errors: ${errors.slice(0, 3).join(' | ')}`);
  if (r.total !== PODS) throw new Error(`synced with ${r.total} objects, expected ${PODS}`);
  return r;
}

const browser = await launch();
const results = {};
try {
  const modes = [['gzip', true], ['plain', false]];
  const clusters = {};
  for (const [name, on] of modes) {
    clusters[name] = await cluster(on);
    log(`${name}: sim with ${PODS} pods ready at ${clusters[name].base}`);
  }
  const kinds = env.STREAM === '1' ? [false, true] : [false];
  for (const streaming of kinds) {
    for (let i = 0; i < RUNS; i++) {
      for (const [name] of i % 2 ? [...modes].reverse() : modes) {
        const key = `${name}${streaming ? ' streaming' : ''}`;
        const r = await syncOnce(browser, clusters[name].base, streaming);
        log(`${key} run ${i + 1}: ${JSON.stringify(r)}`);
        (results[key] ||= []).push(r);
      }
    }
  }
  Object.values(clusters).forEach((c) => c.stop());
} finally {
  await browser.close();
}

const mb = (b) => (b / 1e6).toFixed(1);
const lines = [
  `| ${PODS.toLocaleString('en')} pods, list-then-watch | Synced (median of ${RUNS}) | range | bytes received | bytes decoded | requests | Content-Encoding seen |`,
  '|---|---:|---:|---:|---:|---:|---|',
];
for (const [key, rs] of Object.entries(results)) {
  const t = rs.map((r) => r.syncedMs / 1000);
  lines.push(`| ${key} | ${median(t).toFixed(2)} s | ${Math.min(...t).toFixed(2)}..${Math.max(...t).toFixed(2)} s | ${mb(median(rs.map((r) => r.wire)))} MB | ${mb(median(rs.map((r) => r.decoded)))} MB | ${rs[0].requests} | ${[...new Set(rs.flatMap((r) => r.encodings))].join(', ')} |`);
}
const g = results.gzip;
const p = results.plain;
if (g && p) {
  const ratioBytes = median(p.map((r) => r.wire)) / median(g.map((r) => r.wire));
  const ratioTime = median(p.map((r) => r.syncedMs)) / median(g.map((r) => r.syncedMs));
  lines.push('', `gzip: ${ratioBytes.toFixed(1)}x fewer bytes on the wire; time to Synced ${ratioTime >= 1 ? `${ratioTime.toFixed(2)}x shorter` : `${(1 / ratioTime).toFixed(2)}x longer`} (over loopback, where bytes are nearly free: the gain is on real links).`);
  if (!g.every((r) => r.encodings.includes('gzip'))) throw new Error('kubectl proxy did not pass gzip through');
}
const md = lines.join('\n');
console.log(md);
mkdirSync(ARTIFACTS, { recursive: true });
writeFileSync(join(ARTIFACTS, 'gzip-bench.md'), `${md}\n`);
writeFileSync(join(ARTIFACTS, 'gzip-bench.json'), JSON.stringify(results, null, 2));
