// @kubernetes/client-node's ListWatch (the informer cache) against a kubelive-sim
// server: time from start until every listed pod is in its cache.
//
// node listwatch.mjs --server http://127.0.0.1:18080 --pods 50000 [--runs 5]
// Prints RESULT lines (tab-separated) for `cargo xtask bench`.
import * as k8s from '@kubernetes/client-node';
import { simClient } from './sim.mjs';
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const server = opt('--server', 'http://127.0.0.1:18080');
const pods = Number(opt('--pods', '50000'));
const runs = Number(opt('--runs', '5'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const version = JSON.parse(
  readFileSync(new URL('./node_modules/@kubernetes/client-node/package.json', import.meta.url)),
).version;

const { kc, api } = simClient(server);

function syncOnce() {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    let added = 0;
    let lw;
    const listFn = () => api.listPodForAllNamespaces();
    lw = new k8s.ListWatch('/api/v1/pods', new k8s.Watch(kc), listFn, false);
    lw.on('add', () => {
      added++;
      if (added === pods) {
        const s = Number(process.hrtime.bigint() - t) / 1e9;
        // Let the watch start, then stop it: the cache is what we timed.
        setImmediate(() => lw.stop().then(() => resolve(s)));
      }
    });
    lw.on('error', reject);
    lw.start().catch(reject);
  });
}

const times = [];
for (let r = 0; r <= runs; r++) {
  const s = await syncOnce();
  console.error(`  round ${r} client-node ListWatch ${s.toFixed(3)} s`);
  if (r > 0) times.push(s);
  globalThis.gc?.();
}
const m = median(times);
console.log(
  [
    'RESULT',
    'sync',
    `@kubernetes/client-node ${version} ListWatch (Node ${process.version}, one LIST)`,
    `pods=${pods}`,
    `median ms=${(m * 1e3).toFixed(0)}`,
    `objects/s=${(pods / m).toFixed(0)}`,
    `spread ms=${(Math.min(...times) * 1e3).toFixed(0)}..${(Math.max(...times) * 1e3).toFixed(0)}`,
  ].join('\t'),
);
process.exit(0);
