// @kubernetes/client-node's informer on /api/v1/pods, run as its users run it, for the
// apiserver's bill (`cargo xtask bench --only bill`): `makeInformer` with
// `listPodForAllNamespaces`, restarted 5 s after an error as client-node's own examples
// do (examples/typescript/informer/informer.ts: `informer.on('error', ...)
// setTimeout(() => informer.start(), 5000)`). Prints `synced N` on stdout once the first
// list is in its cache and its watch started; runs until killed.
//
// node bill.mjs --server http://127.0.0.1:18080
import * as k8s from '@kubernetes/client-node';
import { simClient } from './sim.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const server = opt('--server', 'http://127.0.0.1:18080');

const { kc, api } = simClient(server);
const informer = k8s.makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
let errors = 0;
informer.on('error', (err) => {
  errors++;
  console.error(`error ${errors}: ${err && (err.message || err.code || err)}`);
  setTimeout(() => informer.start(), 5000);
});
await informer.start();
console.log(`synced ${informer.list().length}`);
setInterval(() => {}, 1 << 30);
