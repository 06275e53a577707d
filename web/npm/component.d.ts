// Types of `kubelive/table`: the <kubelive-table> element (hand-written; checked with
// `tsc --strict` under lib es2022 + dom by `cargo xtask test`).
import type { TableColumn, TableRow, View, Watcher, WatcherError, WatcherStatus, WatcherSynced } from './index.js';

/** `detail` of `kubelive-change`: a batch of changes landed. */
export interface KubeliveChange {
  /** The watcher's `version` after the batch. */
  version: number;
  /** Rows held. */
  size: number;
}

/** `detail` of `kubelive-select`: a row was clicked. Cancelable: `preventDefault()` and the element shows no detail of its own. */
export interface KubeliveSelect {
  row: TableRow;
}

export type KubeliveChangeEvent = CustomEvent<KubeliveChange>;
export type KubeliveStatusEvent = CustomEvent<WatcherStatus>;
export type KubeliveSyncedEvent = CustomEvent<WatcherSynced>;
export type KubeliveErrorEvent = CustomEvent<WatcherError>;
export type KubeliveSelectEvent = CustomEvent<KubeliveSelect>;

/** The DOM events of <kubelive-table>: each bubbles and crosses shadow roots (composed). */
export interface KubeliveTableEventMap extends HTMLElementEventMap {
  'kubelive-change': KubeliveChangeEvent;
  'kubelive-status': KubeliveStatusEvent;
  'kubelive-synced': KubeliveSyncedEvent;
  /** A failure of the watch (backingOff or failed), or options the Watcher refused. */
  'kubelive-error': KubeliveErrorEvent;
  /** A row was clicked; unless cancelled, the element shows the object (fetched then, a Secret's values masked) below the table. */
  'kubelive-select': KubeliveSelectEvent;
}

/**
 * `<kubelive-table resource="/api/v1/pods" namespace="web" label-selector="app=web">`:
 * the collection as the server prints it, live. Attributes: `resource`, `namespace`,
 * `label-selector`, `field-selector`, `base-url`, `shared` (the engine runs in kubelive's
 * shared worker: the Watcher's `shared` option; a change restarts the watch), `persist`
 * (the Watcher's `persist`: `persist` on, `persist="false"` off, absent the default),
 * `wide`, `filter`.
 * Removed from the document, it stops its watcher.
 */
export declare class KubeliveTable extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The watcher of the current attributes; null before it started (or when the attributes were refused). */
  get watcher(): Watcher<TableRow> | null;
  /** The view of the watcher it shows (kubelive's table model sorts, filters and prints the rows); null while no watcher runs. */
  get view(): View | null;
  /** The Watcher's `persist` option, reflected by the `persist` attribute: true (`persist`), false (`persist="false"`), null (absent: the Watcher's default, on for a shared table). */
  get persist(): boolean | null;
  set persist(on: boolean | null);
  /** Free text: only rows with every word in one of their shown cells (not ages); reflected by the `filter` attribute. */
  get filter(): string;
  set filter(text: string);
  /** Every column (as `-o wide`), reflected by the `wide` attribute. */
  get wide(): boolean;
  set wide(on: boolean);
  /** The columns shown, in order. */
  get shownColumns(): TableColumn[];
  addEventListener<K extends keyof KubeliveTableEventMap>(
    type: K,
    listener: (this: KubeliveTable, event: KubeliveTableEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof KubeliveTableEventMap>(
    type: K,
    listener: (this: KubeliveTable, event: KubeliveTableEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

/** kubectl's human duration (`45s`, `5m2s`, `3h10m`, `2d4h`), from seconds (the package's, after `init()`). */
export declare function humanDuration(seconds: number): string;

declare global {
  interface HTMLElementTagNameMap {
    'kubelive-table': KubeliveTable;
  }
}
