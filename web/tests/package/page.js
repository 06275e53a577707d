// A page served from a directory where the packed tarball was installed with npm: it
// loads the package from node_modules, as a dashboard without a bundler would.
import * as kubelive from './node_modules/kubelive/index.js';

const { default: init, Watcher } = kubelive;
await init();
const watcher = new Watcher({ path: '/api/v1/namespaces/ns-0/pods' });
watcher.onStatus((s) => {
  const el = document.getElementById('status');
  el.textContent = `${s.phase} ${s.objects}`;
  el.dataset.synced = String(s.synced);
});
watcher.start();
window.kubelive = kubelive;
window.pageWatcher = watcher;
