import { App, Button, Card, Popconfirm, Result, Space, Spin, Table, type TableColumnsType, type TableProps } from 'antd';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAccess } from '../../auth/access';
import { openFirstContent } from '../../router/firstContent';
import { deleteRecord, queryPage, type PageParams } from './api';
import { cellText } from './display';
import { exportColumns, pageExporter, serverExporter } from './exporter';
import FilterBar from './FilterBar';
import ImportDialog from './ImportDialog';
import ListToolbar from './ListToolbar';
import { useEnterpriseNames } from '../org/enterprises';
import { columnPlan, conditionsOf, enumLabel, fieldTitle, filterFields, formFields, missingFilters, namespaceOf, PAGE_SIZE_OPTIONS, TENANT_FIELD, totalText } from './model';
import RecordDrawer from './RecordDrawer';
import type { EntityMeta, FieldMeta, ListRecord, ListScreen, PageSource } from './types';
import { useEntityMeta, useListData } from './useListData';

/** False until the table's first answer is painted: a screen's charts (their report calls, ECharts' work) and
 * the filter bar's widgets (the enterprise tree, the vehicle pickers: their calls and their render) wait for
 * the rows, so the rows come first (performance target: a report's first rows <= 1 s). */
function useAfterFirstRows(loading: boolean): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (shown || loading) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => { timer = setTimeout(() => setShown(true), 0); }); // after the paint
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [shown, loading]);
  return shown;
}

/** Cell texts longer than this (a dictionary's JSON, a frame's hex) show their start and an ellipsis, the whole text
 * on hover: the table is as wide as its cells' texts (scroll x max-content), and one such cell made it 34,000 px. */
const LONG_CELL_CHARS = 48;

function cellNode(text: string): ReactNode {
  return text.length > LONG_CELL_CHARS ? <span className="list-cell-long" title={text}>{text}</span> : text;
}

const FEATURE_OF: Record<string, keyof NonNullable<ListScreen['features']>> = {
  add: 'create', update: 'edit', delete: 'delete', import: 'import', export: 'export',
};

/** Whether the screen offers an action at all (before the user's permissions): the screen did not turn
 * it off, a write needs a writable entity, import/export need importable/exportable fields. */
function offers(meta: EntityMeta, screen: ListScreen, action: string): boolean {
  const feature = FEATURE_OF[action];
  if (feature && screen.features?.[feature] === false) return false;
  if (['add', 'update', 'delete', 'import'].includes(action) && meta.writable === false) return false;
  if (action === 'import') return meta.fields.some((f) => f.importable);
  if (action === 'export') return meta.fields.some((f) => f.exportable);
  return true;
}

/** The one list page: filters, a server-paged table, row actions, drawer, import, export. */
export default function ListPage({ screen }: { screen: ListScreen }) {
  const { t } = useTranslation(['list', namespaceOf(screen.namespace)]);
  const { meta, failed } = useEntityMeta(screen.entity);
  if (failed) return <Result status="warning" title={t('list:metaFailed')} data-testid="list-meta-failed" />;
  if (!meta) return <Spin style={{ display: 'block', margin: 48 }} />;
  return <EntityList meta={meta} screen={screen} />;
}

function EntityList({ meta, screen }: { meta: EntityMeta; screen: ListScreen }) {
  const { t } = useTranslation(['list', namespaceOf(screen.namespace)]);
  const { notification } = App.useApp();
  const access = useAccess();
  const permission = screen.permission ?? meta.permission ?? screen.entity;
  const can = useCallback((action: string) => offers(meta, screen, action) && access.can(permission, action), [access, permission, meta, screen]);
  const filters = useMemo(() => filterFields(meta, screen), [meta, screen]);
  const kinds = screen.filterKinds;
  const initialBody = useMemo(() => conditionsOf(filters, screen.initialFilters ?? {}, kinds), [filters, screen.initialFilters, kinds]);
  const ready = useCallback((body: Record<string, unknown>) => missingFilters(screen.requiredFilters, body).length === 0,
    [screen.requiredFilters]);
  const list = useListData(meta.name, true, screen.query, screen.params, initialBody, ready, screen.fetchPage);
  const missing = missingFilters(screen.requiredFilters, { ...list.state.body, ...screen.query });
  const form = useMemo(() => formFields(meta, screen), [meta, screen]);
  const [editing, setEditing] = useState<ListRecord | null>(null);
  const [importing, setImporting] = useState(false);
  const [selected, setSelected] = useState<unknown[]>([]);
  const { reload } = list;
  const firstRowsShown = useAfterFirstRows(list.loading);
  useEffect(() => {
    if (firstRowsShown) openFirstContent(); // the shell's deferred calls wait for the opening page's first rows
  }, [firstRowsShown]);
  // A link that fills the create form in opens the drawer once per set of values (a state adjusted while
  // rendering, React's pattern for a prop change, so the drawer opens with the first paint).
  const [openedFor, setOpenedFor] = useState<ListRecord | undefined>(undefined);
  if (screen.openCreate !== openedFor && can('add')) {
    setOpenedFor(screen.openCreate);
    if (screen.openCreate) setEditing(screen.openCreate);
  }

  const remove = async (record: ListRecord) => {
    const reply = await deleteRecord(meta.name, record[meta.idField]);
    if (reply.code !== 0) notification.error({ title: t('common:request.errorTitle'), description: reply.message });
    reload();
  };

  const plan = columnPlan(meta, screen);
  // the tenant column shows the enterprise's name (of the caller's tree), not its id
  const tenantShown = plan.some(({ field, decl }) => field.name === TENANT_FIELD && !decl?.render);
  const names = useEnterpriseNames(tenantShown);
  const text = (field: FieldMeta, value: unknown): string => (field.name === TENANT_FIELD && value !== null && value !== undefined
    ? names.get(Number(value)) ?? String(value) : cellText(field, value, (v) => enumLabel(t, screen.namespace, field, v)));
  const columns: TableColumnsType<ListRecord> = plan.map(({ field, decl, computed }) => ({
    key: field.name,
    dataIndex: computed ? undefined : field.name,
    title: decl?.title ?? fieldTitle(t, screen.namespace, field),
    width: decl?.width,
    sorter: !computed && field.sortable,
    sortOrder: list.state.orderBy === field.name ? (list.state.desc ? 'descend' : 'ascend') : null,
    render: (value: unknown, record: ListRecord) => (decl?.render ? decl.render(value, record) as ReactNode
      : cellNode(text(field, value))),
  }));
  const queryBody = { ...list.state.body, ...screen.query };
  // A screen whose rows are computed (fetchPage) or that exports as shown (the reports) writes its file here
  // from the table's columns: the titles and cell texts of the screen, in the user's language.
  const source: PageSource | undefined = screen.fetchPage
    ?? (screen.exportAsShown ? (page, body, signal) => queryPage(meta.name, page as PageParams, body, signal) : undefined);
  const exporter = source
    ? pageExporter(source, list.params, queryBody, exportColumns(plan, text,
      (field, decl) => decl?.title ?? fieldTitle(t, screen.namespace, field)), screen.exportName ?? meta.name)
    : serverExporter(meta.name, list.params, queryBody);

  const actions = (record: ListRecord): ReactNode[] => {
    const id = screen.rowKey ? screen.rowKey(record) : String(record[meta.idField]);
    const items: ReactNode[] = [];
    if (screen.detail && can('get')) items.push(<Link key="detail" to={screen.detail(record)} data-testid={`row-detail-${id}`}>{t('list:detail')}</Link>);
    if (can('update')) {
      items.push(<Button key="edit" type="link" size="small" onClick={() => setEditing(record)} data-testid={`row-edit-${id}`}>{t('list:edit')}</Button>);
    }
    if (can('delete')) {
      items.push(
        <Popconfirm key="delete" title={t('list:deleteConfirm')} onConfirm={() => remove(record)} okButtonProps={{ danger: true }}>
          <Button type="link" size="small" danger data-testid={`row-delete-${id}`}>{t('list:delete')}</Button>
        </Popconfirm>,
      );
    }
    for (const action of screen.rowActions ?? []) {
      if (action.action && !can(action.action)) continue;
      if (action.visible && !action.visible(record)) continue;
      items.push(
        action.href ? (
          <Link key={action.key} to={action.href(record)} data-testid={`row-${action.key}-${id}`}>{action.label}</Link>
        ) : (
          <Button key={action.key} type="link" size="small" onClick={() => action.onClick?.(record, { reload })} data-testid={`row-${action.key}-${id}`}>
            {action.label}
          </Button>
        ),
      );
    }
    return items;
  };
  const anyAction = (screen.detail && can('get')) || can('update') || can('delete') || (screen.rowActions?.length ?? 0) > 0;
  if (anyAction) {
    columns.push({ key: '__actions', title: t('list:actions'), fixed: 'right', render: (_: unknown, record: ListRecord) => <Space size={0}>{actions(record)}</Space> });
  }

  const onChange: TableProps<ListRecord>['onChange'] = (pagination, _filters, sorter) => {
    const sort = Array.isArray(sorter) ? sorter[0] : sorter;
    const orderBy = sort?.order ? String(sort.field) : undefined;
    list.setState((s) => ({
      ...s,
      pageNo: pagination.pageSize !== s.pageSize ? 1 : (pagination.current ?? 1),
      pageSize: pagination.pageSize ?? s.pageSize,
      orderBy,
      desc: orderBy ? sort.order === 'descend' : undefined,
    }));
  };
  // Search reads the list again even with unchanged filters: rows added since (a new alarm) must show.
  const search = (values: Record<string, unknown>) => {
    list.setState((s) => ({ ...s, pageNo: 1, body: conditionsOf(filters, values, kinds) }));
    list.reload();
  };
  const afterWrite = () => {
    setEditing(null);
    reload();
  };

  return (
    <Card data-testid={`list-page-${meta.name}`}>
      {firstRowsShown
        ? <FilterBar namespace={screen.namespace} fields={filters} onSearch={search} initialValues={screen.initialFilters} kinds={kinds} />
        : <div className="list-filters-pending" data-testid="list-filters-pending" />}
      <ListToolbar entity={meta.name} can={can} selected={selected} exporter={exporter}
        onCreate={() => setEditing({})} onImport={() => setImporting(true)}
        onDeleted={() => { setSelected([]); reload(); }} extra={screen.toolbar} />
      {screen.chart && firstRowsShown && !missing.length ? screen.chart({ body: queryBody, params: list.params, rows: list.rows, total: list.total }) : null}
      <Table<ListRecord>
        rowKey={screen.rowKey ?? ((record) => String(record[meta.idField]))}
        columns={columns}
        dataSource={missing.length ? [] : list.rows}
        loading={list.loading}
        onChange={onChange}
        scroll={{ x: 'max-content' }}
        rowSelection={can('delete') ? { selectedRowKeys: selected.map(String), onChange: (_keys, rows) => setSelected(rows.map((r) => r[meta.idField])) } : undefined}
        pagination={{
          current: list.state.pageNo,
          pageSize: list.state.pageSize,
          total: missing.length ? 0 : list.total,
          pageSizeOptions: PAGE_SIZE_OPTIONS,
          showSizeChanger: true,
          showTotal: (total) => <span data-testid="list-total">{totalText(t, total)}</span>,
        }}
        data-testid="list-table"
        locale={missing.length ? { emptyText: <span data-testid="list-required">{t('list:required', {
          fields: filters.filter((f) => missing.includes(f.name)).map((f) => fieldTitle(t, screen.namespace, f)).join(t('list:separator')),
        })}</span> } : undefined}
      />
      <RecordDrawer meta={meta} namespace={screen.namespace} fields={form} record={editing} onClose={() => setEditing(null)} onSaved={afterWrite}
        onCreated={screen.onCreated} validators={screen.validators} createDefaults={screen.createDefaults} />
      <ImportDialog entity={meta.name} open={importing} onClose={() => setImporting(false)} onImported={reload} />
    </Card>
  );
}
