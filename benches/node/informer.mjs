// Issue 15: a more faithful sim must not break a correct client that is not kubelive.
// @kubernetes/client-node's informer, run as its users run it (`makeInformer` over
// `listPodForAllNamespaces`, restarted after an error as client-node's own examples do),
// watches pods through kubectl proxy while the sim churns under faults (cut and split
// responses, 5xx, 429, HTML error pages, compaction and a short watch-cache window, so
// 410s). After the churn stops its cache must equal the server's truth: the same pods at
// the same resourceVersions.
//
// Run by `cargo xtask test` (the e2e step) and `cargo xtask e2e informer`; by hand:
//   BASE_URL=http://127.0.0.1:8001 CHURN_FOR=30 node benches/node/informer.mjs
import * as k8s from '@kubernetes/client-node';
import { simClient } from './sim.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
// The suite's `--churn-for` (the sim stops changing pods then).
const CHURN_FOR = Number(process.env.CHURN_FOR || 30);
// How long after the churn the informer may take (a restart waits 2 s; a relist of a
// few hundred pods through faults takes a few more).
const SETTLE_SECS = 90;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const log = (s) => console.log(`  [${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);

const { kc, api } = simClient(BASE);
const informer = k8s.makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
let errors = 0;
const restart = () => setTimeout(() => informer.start().catch(onError), 2000);
function onError(err) {
  errors++;
  if (errors <= 5) log(`informer error ${errors}: ${(err && (err.message || err.code || err)) || 'unknown'}`.slice(0, 200));
  restart();
}
informer.on('error', onError);
informer.start().catch(onError);

/** The server's pods as `ns/name@rv`, read until an answer is whole (the sim's faults
 * apply to this client too). */
async function truth() {
  for (;;) {
    try {
      const r = await fetch(`${BASE}/api/v1/pods`);
      if (r.ok) {
        const list = JSON.parse(await r.text());
        if (list.kind === 'PodList') return keys(list.items);
      }
    } catch (_) { /* cut, malformed: ask again */ }
    await sleep(100);
  }
}
const keys = (items) => items.map((p) => `${p.metadata.namespace}/${p.metadata.name}@${p.metadata.resourceVersion}`).sort().join('\n');
const cache = () => keys(informer.list());

function diff(a, b) {
  const A = new Set(a.split('\n'));
  const B = new Set(b.split('\n'));
  const only = (x, y) => [...x].filter((k) => k && !y.has(k));
  return `informer only: [${only(B, A).slice(0, 5).join(', ')}] server only: [${only(A, B).slice(0, 5).join(', ')}]`;
}

await sleep(CHURN_FOR * 1000);
log(`the churn is over (${errors} informer errors so far); waiting for the cache to equal the server`);
let last = '';
let ok = false;
while (Date.now() - t0 < (CHURN_FOR + SETTLE_SECS) * 1000) {
  const before = await truth();
  const mine = cache();
  const after = await truth();
  if (before === after && mine === after) {
    ok = after.length > 0;
    log(`converged: ${after.split('\n').length} pods, after ${errors} informer error(s)`);
    break;
  }
  last = before === after ? diff(after, mine) : 'the server still changes';
  await sleep(500);
}
if (ok) {
  console.log('  ok   client-node\'s informer converges to the server\'s pods under the sim\'s faults');
  process.exit(0);
}
console.log(`  FAIL client-node's informer did not converge within ${SETTLE_SECS} s of the churn's end: ${last}`);
process.exit(1);
