// A consumer of the installed package, type-checked by `cargo xtask test` with
// `tsc --strict --lib es2022,dom` (no skipLibCheck) under the bundler and nodenext
// module resolutions: the package's types must describe what a dashboard writes.
import init, {
  View,
  Watcher,
  forgetSavedViews,
  type KubeObject,
  type ObjectMeta,
  type WatcherChange,
  type WatcherError,
  type WatcherOptions,
  type WatcherStatus,
  type TableCell,
  type TableColumn,
  type TableRow,
  type TableRowWithObject,
  type TableWatcherOptions,
  type ViewRow,
  type ViewWindow,
  type HistoryEntry,
} from 'kubelive';
import { KubeliveTable, type KubeliveStatusEvent } from 'kubelive/table';
// @ts-expect-error: the wasm half is internal
import { WatcherCore } from 'kubelive';
// @ts-expect-error: the app is not in the package
import { startApp } from 'kubelive';
// @ts-expect-error: nor the bench page's exports
import { BenchStream } from 'kubelive';

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

/** The shape of React's useSyncExternalStore. */
declare function useSyncExternalStore<S>(subscribe: (onChange: () => void) => () => void, getSnapshot: () => S): S;

export async function dashboard(): Promise<void> {
  await init();
  await init(new URL('./node_modules/kubelive/kubelive_watcher_bg.wasm', import.meta.url));
  const options: WatcherOptions = {
    path: '/api/v1/pods',
    namespace: 'ns-0',
    labelSelector: 'app=web',
    pageSize: 100,
    maxPageSize: 1000,
    retryOnFailure: false,
    format: 'objects',
  };
  const w = new Watcher<Pod>(options);
  const unsubscribe: () => void = w.onChange((change: WatcherChange<Pod>) => {
    const phase: string | undefined = change.object.status?.phase;
    const meta: ObjectMeta = change.object.metadata;
    console.log(change.type, meta.namespace ?? '', meta.name, meta.labels?.app, phase);
  });
  w.onStatus((s: WatcherStatus) => {
    if (s.phase === 'failed' && s.error !== null) {
      const code: number | null = s.error.code;
      const retryable: boolean = s.error.retryable;
      console.log(code, s.error.reason, retryable);
    }
  });
  w.onError((e: WatcherError) => console.log(e.message));
  w.onSynced(({ objects, resourceVersion }) => console.log(objects, resourceVersion));
  w.onReset(({ reason }) => console.log(reason));
  w.onUpdate((version: number) => console.log(version));
  w.addEventListener('change', (e) => {
    const type: 'ADDED' | 'MODIFIED' | 'DELETED' = e.detail.type;
    const pod: Pod = e.detail.object;
    console.log(type, pod.spec?.nodeName);
  });
  w.addEventListener('status', function (e) {
    const self: Watcher<Pod> = this;
    console.log(self.size, e.detail.objects, e.detail.lastByteAgoMs);
  });
  w.addEventListener('error', (e) => console.log(e.detail.code));
  w.addEventListener('synced', (e) => console.log(e.detail.resourceVersion));
  w.addEventListener('reset', (e) => console.log(e.detail.reason));
  w.addEventListener('update', (e) => console.log(e.detail.version));
  w.addEventListener('something-else', (e: Event) => console.log(e.type));
  const snapshot: readonly Pod[] = w.snapshot();
  const pods: readonly Pod[] = useSyncExternalStore(w.subscribe, w.snapshot);
  const one: Pod | undefined = w.get('ns-0', snapshot[0]?.metadata.name ?? '');
  const counts: number = w.size + w.version + pods.length;
  console.log(one, counts);
  // An object's versions since the sync, newest first.
  const versions: HistoryEntry[] = w.history('ns-0', snapshot[0]?.metadata.name ?? '');
  const touched: string[] = versions.flatMap((v) => (v.kind === 'modified' ? v.changes.map((c) => `${v.resourceVersion} ${c.path}: ${String(c.before)} -> ${String(c.after)}`) : []));
  console.log(touched, versions[0]?.time);
  w.start();
  w.stop();
  unsubscribe();
  w.free();
  const freed: boolean = w.freed;
  console.log(freed);

  // Untyped: any Kubernetes object, its fields unknown until narrowed.
  const deployments = new Watcher({ path: '/apis/apps/v1/deployments' });
  const spec: unknown = deployments.snapshot()[0]?.spec;
  console.log(spec);

  // @ts-expect-error: a misspelt option is caught before run time too
  new Watcher({ path: '/api/v1/pods', labelselector: 'app=web' });
  // @ts-expect-error: path is required
  new Watcher({ namespace: 'a' });
  // Table mode: rows of cells and metadata, the server's columns.
  const table = new Watcher({ path: '/api/v1/pods', format: 'table' });
  const rows: readonly TableRow[] = table.snapshot();
  const cell: TableCell | undefined = rows[0]?.cells[0];
  const rowName: string | undefined = rows[0]?.metadata.name;
  const columns: readonly TableColumn[] | null = table.columns();
  const widths: number[] = (columns ?? []).filter((c) => c.priority === 0).map((c) => c.name.length);
  table.onColumns((cols) => console.log(cols.map((c) => `${c.name}:${c.type}:${c.format}`)));
  table.onTablesUnavailable((reason: string) => console.log(reason));
  table.addEventListener('columns', (e) => console.log(e.detail.columns.length));
  table.addEventListener('change', (e) => console.log(e.detail.object.cells.length));
  const tableOptions: TableWatcherOptions = { path: '/api/v1/pods', format: 'table', includeObject: 'Metadata' };
  const why: string | null | undefined = new Watcher(tableOptions).status().tablesUnavailable;
  console.log(cell, rowName, widths, why);
  const full = new Watcher<Pod>({ path: '/api/v1/pods', format: 'table', includeObject: 'Object' });
  const fullRows: readonly TableRowWithObject<Pod>[] = useSyncExternalStore(full.subscribe, full.snapshot);
  console.log(fullRows[0]?.object.status?.phase);
  // @ts-expect-error: rows carry no object unless includeObject is 'Object'
  console.log(rows[0]?.object);
  // @ts-expect-error: includeObject is for table mode only
  new Watcher({ path: '/api/v1/pods', includeObject: 'Object' });
  // @ts-expect-error: no includeObject None (rows could not be keyed)
  new Watcher({ path: '/api/v1/pods', format: 'table', includeObject: 'None' });
  // @ts-expect-error: cells are read-only
  rows[0]?.cells.push('x');
  // Persisted rows: restored at once on a reload, and what was kept can be dropped.
  const kept = new Watcher({ path: '/api/v1/pods', format: 'table', shared: true, persist: true, metadata: 'identity' });
  const restored: boolean = kept.status().restored;
  if (kept.status().phase === 'restored') console.log(restored);
  await forgetSavedViews();
  // @ts-expect-error: only table rows are kept, never objects
  new Watcher({ path: '/api/v1/pods', persist: true });

  // The web component: an HTMLElement with typed events.
  const element: KubeliveTable = document.createElement('kubelive-table');
  element.setAttribute('resource', '/api/v1/pods');
  element.addEventListener('kubelive-status', (e: KubeliveStatusEvent) => console.log(e.detail.phase));
  element.addEventListener('kubelive-change', (e) => console.log(e.detail.version, e.detail.size));
  const held: number = element.watcher?.size ?? 0;
  const elementRows: readonly TableRow[] = element.watcher?.snapshot() ?? [];
  console.log(held, elementRows, element.wide);
  element.persist = false;
  const persisted: boolean | null = element.persist;
  element.persist = null;
  console.log(persisted);
  // Views: the rows sorted and filtered by the table model, a window at a time.
  const view = w.view({ sort: '-age', filter: 'web', wide: true });
  const page: ViewWindow = view.window(0, 40);
  const row: ViewRow | undefined = page.rows[0];
  const shown: string = `${page.length} ${page.sort?.column ?? ''} ${row?.cells.join(' ')} ${row?.state}`;
  view.set({ filter: 'db' });
  const offView: () => void = view.onChange(() => console.log(view.length, shown));
  offView();
  view.free();
  element.filter = 'web';
  console.log(element.view?.window(0, 10).rows.length);
  // @ts-expect-error: views are made by watcher.view()
  new View();
  // @ts-expect-error: snapshots are read-only
  w.snapshot().push(snapshot[0]);
  console.log(WatcherCore, startApp, BenchStream);
}
