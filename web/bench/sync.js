// The driver + store bench (crates/web/src/bench.rs, `BenchSync`): syncs a collection
// from this page's origin, times navigation -> Synced, and reports what the tab holds
// (wasm memory, the store's heap bytes; the JS heap is read by web/bench/run.mjs over
// CDP). Results go to `window.__sync`.
import init, { BenchSync } from '../kubelive_web.js';

const params = new URLSearchParams(location.search);
const path = params.get('path') || '/api/v1/pods';
const streaming = params.get('stream') === '1';
const tables = params.get('tables') === '1';
const state = document.getElementById('state');
const say = (s) => { state.textContent = s; };

async function main() {
  const wasm = await init();
  say(`syncing ${path}${streaming ? ' (streaming list)' : ''}${tables ? ' (tables)' : ''}…`);
  const sync = new BenchSync('', path, streaming, tables);
  window.__benchSync = sync;
  await new Promise((resolve, reject) => {
    const poll = () => {
      if (sync.syncedMs !== undefined) resolve();
      else if (sync.error && !sync.objects) reject(new Error(sync.error));
      else setTimeout(poll, 20);
    };
    poll();
  });
  const result = {
    path,
    streaming,
    tables,
    syncedMs: sync.syncedMs,
    objects: sync.objects,
    storeBytes: sync.storeBytes,
    wasmBytes: wasm.memory.buffer.byteLength,
    error: sync.error || null,
  };
  say(`synced ${result.objects} objects in ${result.syncedMs.toFixed(0)} ms; wasm memory ${(result.wasmBytes / 1e6).toFixed(0)} MB, store ${(result.storeBytes / 1e6).toFixed(0)} MB`);
  window.__sync = result;
}

main().catch((e) => {
  say(`failed: ${e}`);
  console.error(e);
  window.__sync = { error: String(e) };
});
