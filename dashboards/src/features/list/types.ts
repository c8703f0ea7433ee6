import type { ReactNode } from 'react';
import type { ApiReply } from '../../api/types';

/** One field of `GET /api/common/meta/{entity}.json` (the server's FieldSpec, api/query/records.py meta()). */
export interface FieldMeta {
  name: string;
  type: 'int' | 'float' | 'str' | 'bool' | 'time' | 'json';
  label: string;
  required: boolean;
  maxLength: number | null;
  pattern: string | null;
  enum: (string | number)[] | null;
  /** The value is a comma list of `enum` values (a multi-select). */
  multiple?: boolean;
  minimum: number | null;
  maximum: number | null;
  unique: boolean;
  ref: string | null;
  secret?: boolean;
  create: boolean;
  update: boolean;
  listable: boolean;
  filterable: boolean;
  sortable: boolean;
  importable: boolean;
  exportable: boolean;
  /** How the value is shown on screen and in exports (features/list/display.ts; the server's FieldSpec.display). */
  display?: string | null;
  /** What a create without the field stores (the column's default): a new record's form starts with it. */
  default?: unknown;
}

/** The entity's declaration as the console receives it. */
export interface EntityMeta {
  name: string;
  label?: string;
  idField: string;
  permission: string;
  writable?: boolean;
  fields: FieldMeta[];
}

export type ListRecord = Record<string, unknown>;

/** A column: a field name (title, sorting and rendering from the declaration) or that plus overrides;
 * or a computed column of the screen's own (`key`, a title and a render; not sortable). */
export type ColumnDecl = string
  | { field: string; title?: string; width?: number; render?: (value: unknown, record: ListRecord) => ReactNode }
  | { key: string; title: string; width?: number; render: (value: unknown, record: ListRecord) => ReactNode };

/** How a filter reads and what it sends, beyond the widget its declared type gives. */
export type FilterKind =
  /** An integer day `yyyymmdd` (report days): a date range, sent as `<field>.gte` / `<field>.lte`. */
  | { kind: 'dayRange' }
  /** An integer month `yyyymm`: a month range, sent as `<field>.gte` / `<field>.lte`. */
  | { kind: 'monthRange' }
  /** The tenant: an enterprise of the caller's tree, alone (`.eq`) or with its subsidiaries (`.in`). */
  | { kind: 'enterprise' }
  /** An id of another declared entity's records (a vehicle, a driver), chosen by name. */
  | { kind: 'ref'; entity: string }
  /** A choice among counters (e.g. alarm types): sent as `<value>.gt: 0`; the filter name is not a field. */
  | { kind: 'positive'; options: { value: string; label: string }[] }
  /** One of a few values the declaration does not enumerate (e.g. a code 1 / 2): sent as `<field>.eq`. */
  | { kind: 'choice'; options: { value: string | number; label: string }[] };

/** What a screen's page source answers for one page of its table. */
export type PageSource = (page: { pageNo: number; pageSize: number; orderBy?: string; desc?: boolean } & Record<string, unknown>,
  body: Record<string, unknown>, signal?: AbortSignal) => Promise<ApiReply<ListPageReply>>;

/** What a screen's chart sees: the list's current query (every page, not only the shown one). */
export interface ListView {
  body: Record<string, unknown>;
  params: Record<string, string | number | boolean | null | undefined>;
  rows: ListRecord[];
  total: number;
}

/** What a row action hands to the screen's code. */
export interface RowActionContext {
  reload: () => void;
}

export interface RowAction {
  key: string;
  /** Action checked on the screen's permission code (the action directive); absent: always shown. */
  action?: string;
  label: string;
  /** A link (e.g. a detail screen) or a handler. */
  href?: (record: ListRecord) => string;
  onClick?: (record: ListRecord, context: RowActionContext) => void;
  /** Whether the row offers the action (e.g. only unhandled alarms can be handled); absent: every row. */
  visible?: (record: ListRecord) => boolean;
}

/**
 * One list screen. Everything but `entity` is optional: columns are the listable
 * fields, filters the filterable ones, the create/edit form the create/update fields of the
 * server's declaration. Titles come from `<namespace>:fields.<name>`, else the declaration's label.
 */
export interface ListScreen {
  entity: string;
  /** Where the screen's strings are: an i18n namespace, optionally with a key prefix
   * (`catalogue:carModel`); field titles are under `fields.` there. */
  namespace: string;
  /** Permission code of the action directive; default: the declaration's permission. */
  permission?: string;
  columns?: ColumnDecl[];
  filters?: string[];
  /** Fields of the create/edit drawer, in order. */
  form?: string[];
  rowActions?: RowAction[];
  /** Extra toolbar elements, rendered after the built-in buttons. */
  toolbar?: ReactNode;
  /** Fixed conditions added to every query (and export), e.g. `{ "type.eq": 2 }`. */
  query?: Record<string, unknown>;
  /** Console rules of form fields beyond the declaration (console-spec §5, utils/validators.ts): each
   * answers the i18n key of its message, or undefined when the value is acceptable. */
  validators?: Record<string, (value: unknown) => string | undefined>;
  /** Values every create sends besides the form's (e.g. the enterprise selected in a tree). */
  createDefaults?: Record<string, unknown>;
  /** Fixed query parameters of every query (and export), e.g. `{ isParent: false }` for the own enterprise only (the subtree is the server's default). */
  params?: Record<string, string | number | boolean>;
  /** A path for each row's detail link (shown when the user holds `get`). */
  detail?: (record: ListRecord) => string;
  /** Called with the server's answer to a create (e.g. to show a secret it answers only then). */
  onCreated?: (record: ListRecord) => void;
  /** Filter bar values the screen opens with (and reset returns to), e.g. a vehicle and today's range;
   * times as dayjs values or `[start, end]` pairs of them. */
  initialFilters?: Record<string, unknown>;
  /** Filters the server needs before it answers (a history log's vehicle and time range): no query is
   * sent until each has a value; the table says which to choose instead. */
  requiredFilters?: string[];
  /** Which built-in features are on (all by default, each still behind its action). */
  features?: Partial<Record<'create' | 'edit' | 'delete' | 'import' | 'export', boolean>>;
  /** Filters that read differently from their declared type (report days, the enterprise tree, ...). */
  filterKinds?: Record<string, FilterKind>;
  /** Where the table's pages come from instead of the entity's generic query (a report call that sums
   * or pivots); export then pages through it and writes the file in the browser. */
  fetchPage?: PageSource;
  /** Charts (or anything) above the table, given the list's current query. */
  chart?: (view: ListView) => ReactNode;
  /** Export writes the table as shown (its columns, titles and cell texts, in the user's language) from the
   * entity's pages instead of the server's file of every field (the reports). A screen with `fetchPage`
   * always exports what it shows. */
  exportAsShown?: boolean;
  /** The exported file's name without extension (default: the entity). */
  exportName?: string;
  /** Values the create drawer opens with as the screen mounts (or when they change), for a user who may add:
   * a link from another screen that fills the form in (a refused terminal's phone on the device list). */
  openCreate?: ListRecord;
  /** A row's key when the rows are not the entity's records (default: the declaration's id field). */
  rowKey?: (record: ListRecord) => string;
}

/** Declares a screen (a typed identity, so a screen file reads as a declaration). */
export function defineListScreen(screen: ListScreen): ListScreen {
  return screen;
}

/** The page of `POST /api/common/query/{entity}.json?countable=true`. */
export interface ListPageReply {
  list: ListRecord[];
  total?: number;
  pageNo: number;
  pageSize: number;
}
