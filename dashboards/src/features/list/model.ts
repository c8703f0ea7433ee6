import type { FormRule } from 'antd';
import type { TFunction } from 'i18next';
import type { EntityMeta, FieldMeta, FilterKind, ListScreen } from './types';

/** The tenant field (api/query/records.py): not a default column or form field; a screen that lists it
 * shows the enterprise's name, and in its form a tree select of the caller's subtree (RecordDrawer). */
export const TENANT_FIELD = 'enterpriseId';

/** Platform-spec §9: default table pagination. */
export const PAGE_SIZE = 10;
export const PAGE_SIZE_OPTIONS = [10, 20, 30, 50, 100];

/** "共 N 条数据" in zh-CN (platform-spec §9), translated in zh-HK and en-US. */
export function totalText(t: TFunction, total: number): string {
  return t('list:total', { count: total, total });
}

/** The i18n namespace of a screen's strings (`catalogue` of `catalogue:carModel`). */
export function namespaceOf(strings: string): string {
  return strings.split(':')[0];
}

/** A key of the screen's strings: `catalogue` + `fields.name` = `catalogue:fields.name`,
 * `catalogue:carModel` + `fields.name` = `catalogue:carModel.fields.name`. */
export function screenKey(strings: string, key: string): string {
  return strings.includes(':') ? `${strings}.${key}` : `${strings}:${key}`;
}

/** A field's title: the screen's `fields.<name>`, the list framework's, then the declaration's label. */
export function fieldTitle(t: TFunction, strings: string, field: Pick<FieldMeta, 'name' | 'label'>): string {
  return t([screenKey(strings, `fields.${field.name}`), `list:fields.${field.name}`], { defaultValue: field.label || field.name });
}

/** A form field's help under its input: the screen's `help.<field>`, else none. */
export function fieldHelp(t: TFunction, strings: string, field: Pick<FieldMeta, 'name'>): string | undefined {
  return t(screenKey(strings, `help.${field.name}`), { defaultValue: '' }) || undefined;
}

/** An enum value's label: the screen's `enums.<field>.<value>`, the list framework's, else the value. */
export function enumLabel(t: TFunction, strings: string, field: Pick<FieldMeta, 'name'>, value: unknown): string {
  const key = `enums.${field.name}.${String(value)}`;
  return t([screenKey(strings, key), `list:${key}`], { defaultValue: String(value) });
}

function byName(meta: EntityMeta): Map<string, FieldMeta> {
  return new Map(meta.fields.map((f) => [f.name, f]));
}

function pick(meta: EntityMeta, names: string[] | undefined, keep: (f: FieldMeta) => boolean): FieldMeta[] {
  if (!names) return meta.fields.filter((f) => keep(f) && f.name !== meta.idField && f.name !== TENANT_FIELD);
  const fields = byName(meta);
  return names.map((name) => {
    const field = fields.get(name);
    if (!field) throw new Error(`${meta.name} has no field '${name}'`);
    return field;
  });
}

export interface ColumnPlan {
  field: FieldMeta;
  decl: { field?: string; key?: string; title?: string; width?: number; render?: (value: unknown, record: Record<string, unknown>) => unknown } | null;
  /** A computed column of the screen (no field of the entity: not sortable, rendered by the screen). */
  computed?: boolean;
}

/** A stand-in declaration for a name that is not a field of the entity (a computed column, a counter
 * choice filter). */
export function syntheticField(name: string, label = name): FieldMeta {
  return {
    name, type: 'str', label, required: false, maxLength: null, pattern: null, enum: null, minimum: null, maximum: null,
    unique: false, ref: null, create: false, update: false, listable: true, filterable: true, sortable: false,
    importable: false, exportable: true,
  };
}

/** The table's columns: the screen's list, else every listable field but the id and the tenant. */
export function columnPlan(meta: EntityMeta, screen: Pick<ListScreen, 'columns'>): ColumnPlan[] {
  if (!screen.columns) return pick(meta, undefined, (f) => f.listable).map((field) => ({ field, decl: null }));
  const fields = byName(meta);
  return screen.columns.map((decl) => {
    if (typeof decl !== 'string' && 'key' in decl) {
      return { field: syntheticField(decl.key, decl.title), decl, computed: true };
    }
    const name = typeof decl === 'string' ? decl : decl.field;
    const field = fields.get(name);
    if (!field) throw new Error(`${meta.name} has no field '${name}'`);
    return { field, decl: typeof decl === 'string' ? null : decl };
  });
}

/** The filter bar: the screen's list, else every filterable field but the id and the tenant. A name
 * that is not a field is accepted when the screen gives it a `positive` kind (a counter choice). */
export function filterFields(meta: EntityMeta, screen: Pick<ListScreen, 'filters' | 'filterKinds'>): FieldMeta[] {
  if (!screen.filters) return pick(meta, undefined, (f) => f.filterable);
  const fields = byName(meta);
  return screen.filters.map((name) => {
    const field = fields.get(name);
    if (field) return field;
    if (screen.filterKinds?.[name]?.kind === 'positive') return syntheticField(name);
    throw new Error(`${meta.name} has no field '${name}'`);
  });
}

/** The create/edit drawer: the screen's list, else the fields writable on create or update. */
export function formFields(meta: EntityMeta, screen: Pick<ListScreen, 'form'>): FieldMeta[] {
  return pick(meta, screen.form, (f) => f.create || f.update);
}

function anchored(pattern: string): RegExp | null {
  try {
    return new RegExp(`^(?:${pattern})$`); // the server matches the whole value (re.fullmatch)
  } catch {
    return null; // a pattern JavaScript cannot read is left to the server
  }
}

/** antd Form rules from the declaration: a convenience, the server checks the same and has the last word. */
export function rulesFor(field: FieldMeta, title: string, t: TFunction): FormRule[] {
  const rules: FormRule[] = [];
  if (field.required) rules.push({ required: true, message: t('list:rules.required', { field: title }) });
  if (field.type === 'str' && field.maxLength !== null) {
    rules.push({ max: field.maxLength, message: t('list:rules.maxLength', { field: title, max: field.maxLength }) });
  }
  const pattern = field.type === 'str' && field.pattern ? anchored(field.pattern) : null;
  if (pattern) rules.push({ pattern, message: t('list:rules.pattern', { field: title }) });
  if ((field.type === 'int' || field.type === 'float') && (field.minimum !== null || field.maximum !== null)) {
    rules.push({
      type: 'number',
      min: field.minimum ?? undefined,
      max: field.maximum ?? undefined,
      message: t('list:rules.range', { field: title, min: field.minimum ?? '-∞', max: field.maximum ?? '∞' }),
    });
  }
  return rules;
}

/** Which widget edits or filters a field. */
export type Widget = 'text' | 'number' | 'select' | 'multiselect' | 'ref' | 'refs' | 'tags' | 'switch' | 'time';

export function widgetOf(field: FieldMeta): Widget {
  // a list of references (a gb32960 superior platform's carIds): several records of the referenced entity
  if (field.ref && field.type === 'json') return 'refs';
  if (field.ref) return 'ref';
  // any other list a generic form edits is a list of words (an inferior platform's addresses); structured values
  // (a fence's geometry) have forms of their own
  if (field.type === 'json') return 'tags';
  if (field.enum && field.multiple) return 'multiselect';
  if (field.enum) return 'select';
  if (field.type === 'bool') return 'switch';
  if (field.type === 'int' || field.type === 'float') return 'number';
  if (field.type === 'time') return 'time';
  return 'text';
}

/** A day as the report tables key it: 20261015 (local calendar day of the dayjs value). */
export function dayKey(day: { year: () => number; month: () => number; date: () => number }): number {
  return day.year() * 10000 + (day.month() + 1) * 100 + day.date();
}

/** A month as the report tables key it: 202610. */
export function monthKey(day: { year: () => number; month: () => number }): number {
  return day.year() * 100 + day.month() + 1;
}

/** The enterprise filter's value: the chosen enterprise and, with its subsidiaries, every id of its subtree. */
export interface EnterpriseChoice {
  id: number;
  subtree: boolean;
  ids: number[];
}

type DayLike = { year: () => number; month: () => number; date: () => number };

/** The conditions of a filter with a kind (undefined: no condition). */
function kindConditions(name: string, kind: FilterKind, value: unknown): Record<string, unknown> | undefined {
  switch (kind.kind) {
    case 'dayRange':
    case 'monthRange': {
      if (!Array.isArray(value) || !value[0] || !value[1]) return undefined;
      const key = kind.kind === 'dayRange' ? dayKey : monthKey;
      const [start, end] = value as [DayLike, DayLike];
      return { [`${name}.gte`]: key(start), [`${name}.lte`]: key(end) };
    }
    case 'enterprise': {
      const choice = value as EnterpriseChoice;
      if (!choice || typeof choice.id !== 'number') return undefined;
      return choice.subtree && choice.ids.length > 1 ? { [`${name}.in`]: choice.ids } : { [`${name}.eq`]: choice.id };
    }
    case 'positive':
      return typeof value === 'string' && value ? { [`${value}.gt`]: 0 } : undefined;
    case 'ref':
    case 'choice':
      return { [`${name}.eq`]: value };
    default:
      return undefined;
  }
}

/** Filter bar values -> query body: text is a contains match, times a range, the rest equality; a filter
 * with a kind sends what its kind says (`FilterKind`). */
export function conditionsOf(fields: FieldMeta[], values: Record<string, unknown>,
  kinds: Record<string, FilterKind> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const ranges: Record<string, unknown>[] = [];
  for (const field of fields) {
    const value = values[field.name];
    if (value === undefined || value === null || value === '') continue;
    const kind = kinds[field.name];
    if (kind) {
      Object.assign(body, kindConditions(field.name, kind, value) ?? {});
    } else if (field.type === 'time' && Array.isArray(value)) {
      const [start, end] = value as { toISOString: () => string }[];
      ranges.push({ fieldName: field.name, start: start.toISOString(), end: end.toISOString() });
    } else if (widgetOf(field) === 'text') {
      const text = String(value).trim();
      if (text) body[`${field.name}.like`] = text;
    } else {
      body[`${field.name}.eq`] = value;
    }
  }
  if (ranges.length) body.rangeConditions = ranges;
  return body;
}

/** The required filters (by name) a query body does not give a value yet. */
export function missingFilters(required: string[] | undefined, body: Record<string, unknown>): string[] {
  const ranged = new Set(((body.rangeConditions ?? []) as { fieldName?: string }[]).map((r) => r.fieldName));
  return (required ?? []).filter((name) => !ranged.has(name) && !Object.keys(body).some((key) => key.split('.')[0] === name));
}

/** The values a save sends: the form's, without those the operation does not accept or left empty on create. */
export function bodyOf(fields: FieldMeta[], values: Record<string, unknown>, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    if (!(creating ? field.create : field.update)) continue;
    let value = values[field.name];
    if (value === undefined) continue;
    if (typeof value === 'string' && field.type === 'str') value = value.trim();
    if ((creating || field.secret) && (value === '' || value === null)) continue; // a secret left empty stays
    body[field.name] = value === '' && !field.required ? null : value;
  }
  return body;
}

/** The field a failed save names (400/404 `data.field`, 409 `data.field`) when the form shows it. */
export function failedField(data: unknown, fields: FieldMeta[]): string | null {
  if (!data || typeof data !== 'object') return null;
  const name = (data as { field?: unknown }).field;
  return typeof name === 'string' && fields.some((f) => f.name === name) ? name : null;
}
