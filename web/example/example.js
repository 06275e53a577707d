// Embeds kubelive's JS API in a plain page: no framework, no Yew.
import init, { Watcher } from '../kubelive_web.js';

await init();

const watcher = new Watcher({ path: '/api/v1/pods', pageSize: 100 });
const byPhase = new Map();
const changes = document.getElementById('changes');

function render() {
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

function recount() {
  byPhase.clear();
  for (const pod of watcher.snapshot()) {
    const phase = pod.status?.phase ?? 'Unknown';
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + 1);
  }
  render();
}

let scheduled = false;
watcher.onChange(({ type, object }) => {
  const li = document.createElement('li');
  li.textContent = `${type} ${object.metadata.namespace}/${object.metadata.name} rv ${object.metadata.resourceVersion}`;
  changes.prepend(li);
  while (changes.childElementCount > 20) changes.lastElementChild.remove();
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(() => { scheduled = false; recount(); });
  }
});

watcher.onStatus((s) => {
  const el = document.getElementById('status');
  el.textContent = s.synced
    ? `synced: ${s.objects} pods at rv ${s.resourceVersion} (${s.phase})`
    : `${s.phase}${s.retryInMs != null ? ` (retry in ${s.retryInMs} ms: ${s.backoffReason})` : ''}`;
  el.dataset.phase = s.phase;
  el.dataset.synced = String(s.synced);
});

watcher.start();
// For the end-to-end test and the curious: the watcher is reachable from the console.
window.kubeliveWatcher = watcher;
