/**
 * The vehicle tree: enterprise → subsidiary → group → vehicle, state colours, online/total per node,
 * search by plate, ticks. Virtual scrolling (antd Tree `height`) keeps 10,000 vehicles cheap; states
 * and counts refresh at most once a second (the state store's throttle).
 */
import { Button, Empty, Input, Result, Spin, Tree } from 'antd';
import { useCallback, useDeferredValue, useMemo, useState, useSyncExternalStore, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { normaliseBizState, stateColour } from '../../../live/bizState';
import type { VehicleStateStore } from '../../../live/vehicleStates';
import { useElementHeight } from '../hooks/useElementHeight';
import { countNodes, filterByPlate, isVehicleKey, mergeTicked, vehicleKeysIn, type TreeModel, type VehicleNode } from './treeModel';

export interface VehicleTreeProps {
  model: TreeModel | null;
  loading: boolean;
  failed: boolean;
  onRetry: () => void;
  states: VehicleStateStore | null;
  ticked: readonly string[];
  onTickedChange: (keys: string[]) => void;
  /** A click on a vehicle's name: tick it and show its popup, or untick it. */
  onVehicleClick: (key: string) => void;
}

const noStates = { subscribe: () => () => undefined, getVersion: () => 0 };

export function VehicleTree({ model, loading, failed, onRetry, states, ticked, onTickedChange, onVehicleClick }: VehicleTreeProps) {
  const { t } = useTranslation('map');
  const [query, setQuery] = useState('');
  const search = useDeferredValue(query);
  const [bodyRef, height] = useElementHeight<HTMLDivElement>();
  const store = states ?? noStates;
  const version = useSyncExternalStore(store.subscribe, store.getVersion);

  const roots = model?.roots;
  const filtered = useMemo(() => filterByPlate(roots ?? [], search), [roots, search]);
  const visibleKeys = useMemo(() => vehicleKeysIn(filtered.roots), [filtered]);
  const checkedKeys = useMemo(() => {
    const visible = new Set(visibleKeys);
    return ticked.filter((key) => visible.has(key));
  }, [ticked, visibleKeys]);

  const [userExpanded, setUserExpanded] = useState<string[] | null>(null);
  const [searchExpanded, setSearchExpanded] = useState<{ search: string; keys: string[] } | null>(null);
  const defaultExpanded = useMemo(() => (roots ?? []).flatMap((r) => [r.key, ...(r.children ?? []).filter((c) => c.kind !== 'vehicle').map((c) => c.key)]), [roots]);
  const expandedKeys = search.trim()
    ? searchExpanded?.search === search
      ? searchExpanded.keys
      : filtered.expandedKeys
    : (userExpanded ?? defaultExpanded);

  const counts = useMemo(
    () => (roots ? countNodes(roots, (id) => (id != null && states ? (states.get(id)?.online ?? false) : false)) : new Map()),
    // `version` changes whenever the states do.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [roots, states, version],
  );

  const tickedSet = useMemo(() => new Set(ticked), [ticked]);
  const renderTitle = useCallback(
    (node: VehicleNode) => {
      if (node.kind === 'vehicle') {
        const state = node.deviceId != null ? states?.get(node.deviceId) : undefined;
        const bizState = normaliseBizState(state?.bizState ?? model?.cars.get(node.key)?.masterDeviceBizState);
        return (
          <span
            className="fw-tree-vehicle"
            data-testid={`tree-node-${node.key}`}
            data-checked={tickedSet.has(node.key) ? 'true' : 'false'}
            data-state={bizState}
            title={node.disableCheckbox ? t('tree.noDevice') : t(`bizState.${bizState}`)}
          >
            <span className="fw-tree-dot" style={{ background: stateColour(bizState) }} />
            {node.label}
          </span>
        );
      }
      const count = counts.get(node.key) ?? { online: 0, total: 0 };
      return (
        <span data-testid={`tree-node-${node.key}`} title={t('tree.countTitle', { online: count.online, total: count.total })}>
          {node.label}{' '}
          <span className="fw-tree-count" data-testid={`tree-count-${node.key}`}>
            ({count.online}/{count.total})
          </span>
        </span>
      );
    },
    // `version` re-creates the renderer so antd redraws the visible titles with new colours.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [counts, states, model, tickedSet, t, version],
  );

  const onCheck = (checked: Key[] | { checked: Key[] }) => {
    const keys = (Array.isArray(checked) ? checked : checked.checked).map(String);
    onTickedChange(mergeTicked(ticked, visibleKeys, keys));
  };

  const onSelect = (_: Key[], info: { node: { key: Key } }) => {
    const key = String(info.node.key);
    if (isVehicleKey(key)) {
      onVehicleClick(key);
      return;
    }
    const next = expandedKeys.includes(key) ? expandedKeys.filter((k) => k !== key) : [...expandedKeys, key];
    if (search.trim()) setSearchExpanded({ search, keys: next });
    else setUserExpanded(next);
  };

  const onExpand = (keys: Key[]) => {
    const next = keys.map(String);
    if (search.trim()) setSearchExpanded({ search, keys: next });
    else setUserExpanded(next);
  };

  let body: ReactNode;
  if (failed) {
    body = (
      <Result
        status="warning"
        title={t('tree.loadFailed')}
        extra={<Button onClick={onRetry}>{t('tree.retry')}</Button>}
      />
    );
  } else if (!model) {
    body = <Spin tip={t('tree.loading')}><div className="fw-tree-spin" /></Spin>;
  } else if (filtered.roots.length === 0) {
    body = <Empty description={t('tree.empty')} />;
  } else {
    body = (
      <Tree<VehicleNode>
        checkable
        blockNode
        treeData={filtered.roots}
        fieldNames={{ title: 'label', key: 'key', children: 'children' }}
        titleRender={renderTitle}
        checkedKeys={checkedKeys}
        onCheck={onCheck}
        selectedKeys={[]}
        onSelect={onSelect}
        expandedKeys={expandedKeys}
        onExpand={onExpand}
        height={Math.max(height, 200)}
        itemHeight={28}
      />
    );
  }

  return (
    <div className="fw-vehicle-tree" data-testid="vehicle-tree" aria-busy={loading}>
      <Input.Search
        allowClear
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        placeholder={t('tree.searchPlaceholder')}
        data-testid="tree-search"
      />
      <div className="fw-vehicle-tree-body" ref={bodyRef}>
        {body}
      </div>
    </div>
  );
}
