import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchMeta, knownMeta, queryPage, type PageParams } from './api';
import { PAGE_SIZE } from './model';
import type { EntityMeta, ListRecord, PageSource } from './types';

/** The server's declaration of the entity (null until it arrives or when it failed). */
export function useEntityMeta(entity: string): { meta: EntityMeta | null; failed: boolean } {
  const [state, setState] = useState<{ entity: string; meta: EntityMeta | null; failed: boolean }>(
    () => ({ entity, meta: knownMeta(entity) ?? null, failed: false }));
  useEffect(() => {
    let live = true;
    void fetchMeta(entity).then((reply) => {
      const next = { entity, meta: reply.code === 0 ? reply.data : null, failed: reply.code !== 0 };
      if (live) setState((now) => (now.entity === entity && now.meta === next.meta && !next.failed ? now : next));
    });
    return () => {
      live = false;
    };
  }, [entity]);
  return state.entity === entity ? state : { meta: null, failed: false };
}

export interface ListState {
  pageNo: number;
  pageSize: number;
  orderBy?: string;
  desc?: boolean;
  /** The query body: the screen's fixed conditions and the filter bar's. */
  body: Record<string, unknown>;
}

export interface ListData {
  state: ListState;
  rows: ListRecord[];
  total: number;
  loading: boolean;
  setState: (next: (state: ListState) => ListState) => void;
  reload: () => void;
  /** The query parameters of the current list (also used by export). */
  params: PageParams;
}

/** One page of the entity as the table shows it, re-fetched when paging, sorting or filters change. */
export function useListData(entity: string, enabled: boolean, fixed: Record<string, unknown> | undefined,
  fixedParams?: Record<string, string | number | boolean>, initialBody?: Record<string, unknown>,
  ready: (body: Record<string, unknown>) => boolean = () => true, source?: PageSource): ListData {
  const [state, setListState] = useState<ListState>(() => ({ pageNo: 1, pageSize: PAGE_SIZE, body: initialBody ?? {} }));
  const [rows, setRows] = useState<ListRecord[]>([]);
  const [total, setTotal] = useState(0);
  const [generation, setGeneration] = useState(0);
  /** The request the rows answer; the table is loading while the current one differs. */
  const [answered, setAnswered] = useState('');
  const params: PageParams = { ...fixedParams, pageNo: state.pageNo, pageSize: state.pageSize, orderBy: state.orderBy, desc: state.desc };
  const fixedKey = JSON.stringify(fixed ?? {});
  const paramsKey = JSON.stringify(fixedParams ?? {});
  // Server texts in the rows (alarm names) come in the console's language: a switch reads the page again.
  const { i18n } = useTranslation();
  const requestKey = JSON.stringify([entity, state, fixedKey, generation, paramsKey, i18n.language]);
  const answerable = enabled && ready({ ...state.body, ...fixed });

  useEffect(() => {
    if (!answerable) return undefined;
    const controller = new AbortController();
    const [, current, fixedText, , paramsText] = JSON.parse(requestKey) as [string, ListState, string, number, string];
    const body = { ...current.body, ...(JSON.parse(fixedText) as Record<string, unknown>) };
    const page: PageParams = {
      ...(JSON.parse(paramsText) as Record<string, string | number | boolean>),
      pageNo: current.pageNo, pageSize: current.pageSize, orderBy: current.orderBy, desc: current.desc,
    };
    const answer = source ? source(page, body, controller.signal) : queryPage(entity, page, body, controller.signal);
    void answer.then((reply) => {
      if (controller.signal.aborted) return;
      setAnswered(requestKey);
      if (reply.code !== 0 || !reply.data) return;
      const { list, total: count = 0 } = reply.data;
      if (list.length === 0 && count > 0 && current.pageNo > 1) {
        // the last page emptied (a delete): step back to the page that now holds the last rows
        setListState((s) => ({ ...s, pageNo: Math.max(1, Math.ceil(count / s.pageSize)) }));
        return;
      }
      setRows(list);
      setTotal(count);
    });
    return () => controller.abort();
  }, [entity, answerable, requestKey, source]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { state, rows, total, loading: answerable && answered !== requestKey, setState: setListState, reload, params };
}
