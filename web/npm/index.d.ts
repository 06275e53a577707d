// Types of kubelive's browser API (hand-written; checked with `tsc --strict` under
// lib es2022 + dom, without skipLibCheck, by `cargo xtask test`).

/** What `init` can load the wasm module from. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Loads and instantiates the wasm module, once (later calls return the same promise).
 * By default it is fetched from next to `index.js`
 * (`new URL('kubelive_watcher_bg.wasm', import.meta.url)`).
 */
declare function init(module?: InitInput | Promise<InitInput>): Promise<void>;
export default init;
export { init };

/** An owner of an object (`metadata.ownerReferences`). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Who changed which fields (`metadata.managedFields`; see `stripManagedFields`). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** Kubernetes object metadata, as the apiserver returns it for a stored object. */
export interface ObjectMeta {
  name: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  uid: string;
  resourceVersion: string;
  /** RFC 3339, e.g. `2024-05-01T12:00:00Z`. */
  creationTimestamp: string;
  generateName?: string;
  generation?: number;
  /** Set once a graceful deletion started. */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/**
 * Any Kubernetes object. Give `Watcher` your own type for the fields you read, e.g.
 * `interface Pod extends KubeObject { status?: { phase?: string } }` and
 * `new Watcher<Pod>({ path: '/api/v1/pods' })` (not checked at run time).
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** What every Watcher takes; anything else is refused (a TypeError naming the key). */
export interface BaseWatcherOptions {
  /** The collection: `/api/v1/pods`, `/apis/apps/v1/deployments`, `/apis/<group>/<version>/<plural>` (or with `/namespaces/<ns>/`). */
  path: string;
  /** Watch one namespace (default: all, or the one in `path`). */
  namespace?: string;
  /** Sent as `labelSelector`; the server checks it (a rejection is a `failed` 400). */
  labelSelector?: string;
  /** Sent as `fieldSelector`; which fields a resource supports the server decides. */
  fieldSelector?: string;
  /** Sync with a streaming list (`sendInitialEvents`); falls back to LIST + WATCH by itself. Default false. */
  streamingList?: boolean;
  /** Items on a list's first LIST page, a whole number (default 500; 0 lists in one response). */
  pageSize?: number;
  /** Later pages double up to this many items (default 4000), as far as half the 16 MiB document limit holds at the bytes per item seen; `pageSize` or less keeps every page at `pageSize`. */
  maxPageSize?: number;
  /** Where the API is: `''` (default: the page's origin, e.g. through `kubectl proxy`), a path prefix such as `/k8s`, or an http(s) URL (which must allow CORS). */
  baseUrl?: string;
  /**
   * After a failure retrying cannot fix (401, 403, 404, a rejected selector), keep
   * retrying every 10 s or more (`backingOff`) instead of stopping (`failed`).
   * Default false: the failure is shown and nothing more is requested; `start()`
   * tries again.
   */
  retryOnFailure?: boolean;
  /** Drop `metadata.managedFields` (about a third of a pod's size). Default false for objects, true for table rows. */
  stripManagedFields?: boolean;
  /**
   * Which members of each object's `metadata` are kept: `'all'` (default; `'identity'` with `persist`), or
   * `'identity'`: only name, namespace, uid, resourceVersion, creationTimestamp and
   * deletionTimestamp. For views that show table cells and fetch the whole object
   * when asked: a pod's row then holds 376 bytes instead of 610.
   */
  metadata?: 'all' | 'identity';
  /**
   * Run the engine in kubelive's worker (`worker.js`, shipped next to `index.js`): one
   * engine, one LIST and one watch per view for every tab of the origin (a
   * `SharedWorker`; a dedicated `Worker` per page where the browser has no
   * `SharedWorker`). Watchers with the same options but sort, filter and wide share
   * it; each has its own views. The events, status and view API are the same;
   * `snapshot()`, `get()` and `change` events ask the worker for every object the
   * first time one is used (until they arrive, `snapshot()` is empty and `get()`
   * answers only rows a view's window showed, with their namespace and name; an
   * `update` follows), and view windows are answered a message later
   * (a `change` follows). The engine stops 5 s after its last watcher leaves.
   * Default false. The page's CSP needs `worker-src 'self'`.
   */
  shared?: boolean;
}

/** Options of a Watcher of objects (the default format). */
export interface WatcherOptions extends BaseWatcherOptions {
  /** What the watcher delivers: the objects themselves (default), or `'table'` rows (see `TableWatcherOptions`). */
  format?: 'objects';
  includeObject?: never;
  /** Only table rows are kept (see `TableWatcherOptions`). */
  persist?: false;
}

/** Options of a Watcher of table rows: the server prints each object, as `kubectl get` shows it. */
export interface TableWatcherOptions extends BaseWatcherOptions {
  format: 'table';
  /** What each row carries besides its cells: its `metadata` (default), or also the whole `object`. */
  includeObject?: 'Metadata' | 'Object';
  /**
   * Keep the view's rows in this origin's IndexedDB (cells and identity metadata, at
   * the resourceVersion they hold; never whole objects) and start from them: a
   * reload shows the rows at once (`status().restored`, phase `'restored'`) and
   * watches from their version instead of listing; only a 410 (the version expired)
   * lists again, diffed (what vanished comes as deletes). Saved at the sync, then at
   * most every 30 s while the version moves, and when a page showing it is left (hidden too, not shared);
   * kept 24 h, 50 MB per origin in all (the oldest views go first), under the
   * cluster's identity (the kube-system namespace's uid, else the namespace's
   * `kube-root-ca.crt`): another cluster at the same URL drops them, and a server
   * whose identity cannot be read keeps nothing. Default: true for a `shared`
   * watcher whose rows can be kept (`includeObject: 'Metadata'`, `metadata`
   * `'identity'` or not given, which it then is), false otherwise. Needs
   * `metadata: 'identity'` (the default with it). `forgetSavedViews()` drops
   * what was kept.
   */
  persist?: boolean;
}

/** A cell as the server printed it: a string, number, boolean or null (an array or object only from unusual printers). */
export type TableCell = string | number | boolean | null | readonly unknown[] | { readonly [key: string]: unknown };

/** A column as the server declares it (`columnDefinitions[]` of a `meta.k8s.io/v1` Table). */
export interface TableColumn {
  /** As kubectl shows it upper-cased: `Name`, `Ready`, `Status`, `Restarts`, `Age`... */
  name: string;
  /** An OpenAPI type: `string`, `integer`, `number`, `boolean`, `date` (others as the server names them). */
  type: string;
  /** `name` for the object's name column; otherwise as the server says (often `''`). */
  format: string;
  description: string;
  /** 0: shown by default; higher: only with `-o wide`. */
  priority: number;
}

/** One row of a table watcher: the cells in the order of `columns()`, and the object's metadata. */
export interface TableRow {
  readonly cells: readonly TableCell[];
  metadata: ObjectMeta;
}

/** A row of a watcher with `includeObject: 'Object'`. */
export interface TableRowWithObject<T = KubeObject> extends TableRow {
  object: T;
}

/** Where a watcher stands. */
export type WatcherPhase =
  | 'listing'
  | 'initialEvents'
  | 'watching'
  /** The rows are a kept view's (`persist`), shown at once; the watch from their version has not answered yet. */
  | 'restored'
  | 'backingOff'
  /** Stopped by a failure retrying cannot fix (see `error`; `start()` tries again). */
  | 'failed'
  | 'stopped';

/** A failure, as the server said it. */
export interface WatcherError {
  /** The HTTP status (or the Status object's `code`); null when no server answer is behind it (a broken connection, an unreadable body, a deadline). */
  code: number | null;
  /** The Status `reason`: `Forbidden`, `NotFound`, `BadRequest`, `Unauthorized`, `Invalid`, `ServiceUnavailable`...; `''` if none. */
  reason: string;
  /** The server's message, or what went wrong. */
  message: string;
  /** Whether retrying can help without a change on the server or in the options. */
  retryable: boolean;
}

/** One version of an object the watcher got (`watcher.history()`). */
export interface HistoryEntry {
  kind: 'added' | 'modified' | 'deleted';
  resourceVersion: string;
  uid: string;
  /** When the watcher got it: milliseconds since the epoch (as Date.now()). */
  time: number;
  /** Empty for `added` and `deleted`. managedFields, resourceVersion and generation are left out. */
  changes: HistoryChange[];
}

/** One changed member of an object: `before`/`after` absent where the member was absent. */
export interface HistoryChange {
  /** `spec.containers[name=web].image`, `metadata.labels["app.kubernetes.io/name"]`, `cells.Status` (table rows). */
  path: string;
  before?: unknown;
  after?: unknown;
}

export interface WatcherStatus {
  phase: WatcherPhase;
  /** The objects held equal the server's state at `resourceVersion`. */
  synced: boolean;
  /** The rows held are a kept view's (`persist`) the server has not confirmed yet: until the watch from their version answers, or, when it expired, until the relist replacing them is synced. */
  restored: boolean;
  /** The current request has its response head. */
  connected: boolean;
  mode: 'listWatch' | 'streamingList';
  resourceVersion: string | null;
  /** Objects held. */
  objects: number;
  /** The LIST page being fetched (while listing). */
  page: number | null;
  /** Objects received by the list in progress. */
  listed: number;
  pagesListed: number;
  /** The server's estimate of items still to list. */
  remainingEstimate: number | null;
  /** Until the next attempt (while backing off). */
  retryInMs: number | null;
  backoffReason: string | null;
  /** The last failure, until an attempt makes progress again or `start()` is called. */
  error: WatcherError | null;
  added: number;
  modified: number;
  deleted: number;
  bookmarks: number;
  lastBookmarkAgoMs: number | null;
  /** Since the current request last received anything; null while connecting. */
  lastByteAgoMs: number | null;
  resumes: number;
  /** Quiet watches renewed from their version after 150 s without a byte (a collection nothing changes in may get no bookmark): not an error. */
  renewals: number;
  relists: number;
  lastRelistReason: string | null;
  errors: number;
  lastError: string | null;
  /** Why the last sync fell back from a streaming list to LIST + WATCH. */
  fellBack: string | null;
  /** Table mode only: why the server prints no tables here (rows are then made from objects by the fallback printer: kubectl's columns for pods and deployments, Name and Age for the rest); null while it prints them. */
  tablesUnavailable?: string | null;
}

/** One change of the collection; a DELETED object is its last state. */
export interface WatcherChange<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
}

export interface WatcherSynced {
  objects: number;
  resourceVersion: string;
}

/** The collection is read again from scratch while objects are held (a version that expired, a restart that cannot resume): the changes that follow are the difference, deletes for what vanished included, then `synced`. */
export interface WatcherReset {
  reason: string;
}

export interface WatcherColumns {
  columns: readonly TableColumn[];
}

export interface WatcherTablesUnavailable {
  reason: string;
}

export interface WatcherUpdate {
  /** The watcher's `version` after the batch. */
  version: number;
}

/** The events a Watcher dispatches, each a CustomEvent whose `detail` is: */
export interface WatcherEventMap<T = KubeObject> {
  /** one change (only to listeners added before it: use `snapshot()` for the rest). */
  change: CustomEvent<WatcherChange<T>>;
  /** after each batch of changes: the snapshot and `version` moved. */
  update: CustomEvent<WatcherUpdate>;
  /** the status: at once when the phase, sync, connection or error changed; counters alone at most every 250 ms. */
  status: CustomEvent<WatcherStatus>;
  synced: CustomEvent<WatcherSynced>;
  reset: CustomEvent<WatcherReset>;
  /** each failure that makes the watcher wait (backingOff) or stop (failed). */
  error: CustomEvent<WatcherError>;
  /** table mode: the columns to show from now on (the first answer's, or the server's new ones; rows printed with others are replaced before the next `synced`). */
  columns: CustomEvent<WatcherColumns>;
  /** table mode: the server prints no tables here; rows are made from objects from now on (a `columns` event follows). */
  tablesUnavailable: CustomEvent<WatcherTablesUnavailable>;
  /** a `shared` watcher: the worker answered `history(namespace, name)` with something new; ask again. */
  history: CustomEvent<WatcherHistory>;
}

/** Which object's history came (`history` event). */
export interface WatcherHistory {
  namespace: string;
  name: string;
}

/**
 * Makes a Watcher: of objects (`T`, your type for the fields you read), or with
 * `format: 'table'` of `TableRow`s. Throws a TypeError or RangeError naming the option
 * when `options` are wrong, and an Error before `init()` resolved.
 */
export interface WatcherConstructor {
  new <T = KubeObject>(options: TableWatcherOptions & { includeObject: 'Object' }): Watcher<TableRowWithObject<T>>;
  new (options: TableWatcherOptions): Watcher<TableRow>;
  new <T = KubeObject>(options: WatcherOptions): Watcher<T>;
  readonly prototype: Watcher<unknown>;
}

export declare const Watcher: WatcherConstructor;

/**
 * A live copy of one Kubernetes collection. A started watcher keeps running until
 * `stop()`, `free()` or a failure that retrying cannot fix, whether the page keeps a
 * reference to it or not. Objects and rows are shared, not copied: treat them as
 * read-only.
 */
export interface Watcher<T = KubeObject> extends EventTarget {
  /** Starts; after `stop()` or a failure, resumes from the last version held (no relist) when it can, otherwise relists and tells a `reset` (deletes for what vanished follow). */
  start(): void;
  /** Stops and aborts what is in flight; what is held stays readable. */
  stop(): void;
  /** Stops (a last `status` event says `stopped`) and frees its memory; any later call throws. */
  free(): void;
  get freed(): boolean;
  /** Every object (or row) held, sorted by namespace and name: the same frozen array, holding the same objects, until something changes. Bound: pass it as it is. */
  snapshot(): readonly T[];
  /** Table mode: the server's column definitions, the same frozen array until they change; null before the first answer and for objects. Bound. */
  columns(): readonly TableColumn[] | null;
  /** One object (namespace `''` for cluster-scoped ones). */
  get(namespace: string, name: string): T | undefined;
  /** What changed in one object since the watcher synced, newest first (bounded: 64 versions per object, 8 MiB in all). Secret values are "(hidden)". A page's own engine keeps it; a `shared` watcher's is the worker's last answer (`[]` before the first), asked again when the watcher moved, with a `history` event when a new answer came. */
  history(namespace: string, name: string): HistoryEntry[];
  status(): WatcherStatus;
  /** A view of the rows for a table that shows a window of them, sorted and filtered by kubelive's table model; `free()` it when done. */
  view(options?: ViewOptions): View;
  /** Objects held. */
  get size(): number;
  /** Moves with every batch of changes: the snapshot changed when it did. */
  get version(): number;
  /** Each returns a function that unsubscribes. */
  onChange(callback: (change: WatcherChange<T>) => void): () => void;
  onUpdate(callback: (version: number) => void): () => void;
  onStatus(callback: (status: WatcherStatus) => void): () => void;
  onSynced(callback: (synced: WatcherSynced) => void): () => void;
  onReset(callback: (reset: WatcherReset) => void): () => void;
  onError(callback: (error: WatcherError) => void): () => void;
  onColumns(callback: (columns: readonly TableColumn[]) => void): () => void;
  onTablesUnavailable(callback: (reason: string) => void): () => void;
  /** `callback()` after each batch of changes; returns the unsubscribe. Bound: `useSyncExternalStore(watcher.subscribe, watcher.snapshot)`. */
  subscribe(callback: () => void): () => void;
  addEventListener<K extends keyof WatcherEventMap<T>>(
    type: K,
    listener: (this: Watcher<T>, event: WatcherEventMap<T>[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof WatcherEventMap<T>>(
    type: K,
    listener: (this: Watcher<T>, event: WatcherEventMap<T>[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void;
}

/** What a `View` shows (`watcher.view(options)`, `view.set(options)`: absent members stay). */
export interface ViewOptions {
  /** A column's id (`name`, `restarts`, `nominated-node`), `-` first for descending; `''` (the default): the rows' own order, by namespace and name. */
  sort?: string | null;
  /** Free text: rows with every word (case-insensitive) in one of their shown cells, time cells aside. */
  filter?: string | null;
  /** Every column (kubectl's `-o wide`), not only those of priority 0. */
  wide?: boolean | null;
}

/** A column a view shows. */
export interface ViewColumn {
  /** What `sort` names it by: the name in `[a-z0-9-]`. */
  id: string;
  /** As the server (or kubelive's fallback printer) names it; kubectl prints it upper-cased. */
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date' | (string & {});
  /** `name` for the object's name. */
  format: string;
  description: string;
  priority: number;
  /** The cell's index in the watcher's `columns()`; -1 for the NAMESPACE column a view across namespaces adds (as kubectl does). */
  index: number;
  /** Numbers and ages, aligned right. */
  numeric: boolean;
}

/** One row of a window: plain data. */
export interface ViewRow {
  /** `namespace/name` (`/name` when cluster-scoped). */
  key: string;
  namespace: string;
  name: string;
  /** The shown columns' text, as kubectl prints them (ages counted to now). */
  cells: string[];
  /** A change lately (`added`, `changed`), a deletion (`deleted`: shown a moment, fading), or none. */
  state: '' | 'added' | 'changed' | 'deleted';
  /** Milliseconds since that change (0 with no state). */
  elapsed: number;
}

/** An answer of `view.window(first, count)`: plain data (structured-cloneable). */
export interface ViewWindow {
  /** The index of `rows[0]`. */
  first: number;
  /** Rows in the view (deleted ones still fading included; a filter's matches found so far while it is applied). */
  length: number;
  columns: ViewColumn[];
  /** The sort, or null for the rows' own order. */
  sort: { column: string; descending: boolean } | null;
  rows: ViewRow[];
  /** Ask again on the next frame: work is left, or rows are flashing or fading. */
  pending: boolean;
  /**
   * Set on a shared, persisted watcher's view before its engine has restored the view:
   * the first screen an earlier page kept of this view (sorted, filtered and printed the
   * same way), drawn from IndexedDB by this page while kubelive's worker starts. Its
   * cells are as they were then; the worker's rows replace it.
   */
  restored?: true;
}

/**
 * The rows of a watcher as a table shows them: sorted and filtered by kubelive's table
 * model (the app's), read a window at a time. Requests and answers are plain data.
 * A `change` event (`onChange`) says the window's rows may have changed.
 */
export declare class View extends EventTarget {
  private constructor();
  /** Rows `first .. first + count` (at most 1000). A RangeError unless both are whole numbers from 0. */
  window(first: number, count: number): ViewWindow;
  /** Rows in the view. */
  get length(): number;
  set(options: ViewOptions): void;
  onChange(callback: () => void): () => void;
  /** Forgets the view; any later call throws. */
  free(): void;
  get freed(): boolean;
}

/** Drops every view persisted watchers kept in this origin's IndexedDB (running ones keep saving theirs). Loads the wasm if needed. */
export declare function forgetSavedViews(): Promise<void>;

/** kubectl's human duration (`45s`, `5m2s`, `3h10m`, `2d4h`; `<invalid>` over a second in the future), from seconds. After `init()`. */
export declare function humanDuration(seconds: number): string;
