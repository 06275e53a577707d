// Embeds kubelive's npm package in a plain page: no framework, no Yew. `dist/npm/` is
// the package as `npm pack` packs it; a real page imports it from its node_modules.
import init, { Watcher } from '../npm/index.js';
// Defines <kubelive-table> (`import 'kubelive/table'` from the package).
import '../npm/component.js';

await init();

const watcher = new Watcher({ path: '/api/v1/pods', pageSize: 100 });
const changes = document.getElementById('changes');

function render(byPhase) {
  const tbody = document.querySelector('#phases tbody');
  tbody.replaceChildren();
  for (const [phase, n] of [...byPhase].sort()) {
    const tr = document.createElement('tr');
    for (const text of [phase, String(n)]) {
      const td = document.createElement('td');
      td.textContent = text; // object data is text, never markup
      tr.append(td);
    }
    tbody.append(tr);
  }
}

// The snapshot is the same array until something changes: recount once a frame at
// most, and only when it moved.
let counted = null;
let scheduled = false;
function recount() {
  scheduled = false;
  const pods = watcher.snapshot();
  if (pods === counted) return;
  counted = pods;
  const byPhase = new Map();
  for (const pod of pods) {
    const phase = pod.status?.phase ?? 'Unknown';
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + 1);
  }
  render(byPhase);
}
watcher.onUpdate(() => {
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(recount);
  }
});

watcher.onChange(({ type, object }) => {
  const li = document.createElement('li');
  li.textContent = `${type} ${object.metadata.namespace}/${object.metadata.name} rv ${object.metadata.resourceVersion}`;
  changes.prepend(li);
  while (changes.childElementCount > 20) changes.lastElementChild.remove();
});

watcher.onStatus((s) => {
  const el = document.getElementById('status');
  if (s.phase === 'failed') {
    el.textContent = `failed: ${s.error.message} (${s.error.code} ${s.error.reason})`;
  } else if (s.synced) {
    el.textContent = `synced: ${s.objects} pods at rv ${s.resourceVersion} (${s.phase})`;
  } else {
    const retry = s.retryInMs != null ? ` (retry in ${s.retryInMs} ms: ${s.error?.message ?? s.backoffReason})` : '';
    el.textContent = `${s.phase}${retry}`;
  }
  el.dataset.phase = s.phase;
  el.dataset.synced = String(s.synced);
});

watcher.start();
// For the end-to-end test and the curious: the watcher is reachable from the console.
window.kubeliveWatcher = watcher;

// The component's DOM events bubble out of its shadow root.
document.addEventListener('kubelive-select', (e) => {
  const { metadata } = e.detail.row;
  document.getElementById('selected').textContent = `selected ${metadata.namespace ?? ''}/${metadata.name}`;
});
