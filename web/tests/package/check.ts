// A consumer of the installed package, type-checked by `cargo xtask test` with
// `tsc --strict --lib es2022,dom` (no skipLibCheck) under the bundler and nodenext
// module resolutions: the package's types must describe what a dashboard writes.
import init, {
  Watcher,
  type KubeObject,
  type ObjectMeta,
  type WatcherChange,
  type WatcherError,
  type WatcherOptions,
  type WatcherStatus,
} from 'kubelive';
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
  // @ts-expect-error: table rows are not available yet
  new Watcher({ path: '/api/v1/pods', format: 'table' });
  // @ts-expect-error: snapshots are read-only
  w.snapshot().push(snapshot[0]);
  console.log(WatcherCore, startApp, BenchStream);
}
