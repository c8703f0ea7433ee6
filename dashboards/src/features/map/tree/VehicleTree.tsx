/**
 * The vehicle tree: enterprise → subsidiary → group → vehicle, state colours, online/total per node,
 * filter tabs (all / online / offline / alarming) with counts, a colour legend, speed and age of the
 * last fix per vehicle, one search box (plate, VIN, SIM, terminal id, driver: `vehicleSearch.ts`) that
 * names what matched, ticks. Virtual scrolling (antd Tree `height`) keeps 10,000
 * vehicles cheap; states and counts refresh at most once a second (the state store's throttle),
 * ages and alarm counts every few seconds. A star on each vehicle adds it to the user's followed cars
 * (platform-spec §7 carUserView), which the followed tab lists.
 */
import { StarFilled, StarOutlined } from '@ant-design/icons';
import { Button, Empty, Input, Result, Segmented, Spin, Tree } from 'antd';
import { useCallback, useDeferredValue, useMemo, useState, useSyncExternalStore, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { stateColour } from '../../../live/bizState';
import type { PositionStore } from '../../../live/positionStore';
import { isVehicleAlarming, isVehicleOnline, shownBizState, type VehicleStateStore } from '../../../live/vehicleStates';
import { useElementSize } from '../../../components/useElementSize';
import { useNow } from '../hooks/useNow';
import { formatAge, formatNumber } from '../popup/format';
import { StateLegend } from './StateLegend';
import type { VehicleMatch } from './vehicleSearch';
import {
  checkState,
  countNodes,
  filterVehicles,
  findNode,
  inTab,
  isVehicleKey,
  tabCounts,
  toggleTicked,
  TREE_TABS,
  type TreeModel,
  type TreeTab,
  type VehicleFacts,
  type VehicleNode,
} from './treeModel';

export interface VehicleTreeProps {
  model: TreeModel | null;
  loading: boolean;
  failed: boolean;
  onRetry: () => void;
  states: VehicleStateStore | null;
  positions: PositionStore | null;
  tab: TreeTab;
  onTabChange: (tab: TreeTab) => void;
  ticked: readonly string[];
  onTickedChange: (keys: string[]) => void;
  /** A click on a vehicle's name: show it (tick it, open its popup, zoom to it); unticking is the checkbox's. */
  onVehicleClick: (key: string) => void;
  /** The search box's text, and what it matched (null while empty). */
  query: string;
  onQueryChange: (query: string) => void;
  matches: Map<string, VehicleMatch> | null;
  /** The user's followed cars (car ids) and the star's toggle. */
  followed: ReadonlySet<number>;
  onToggleFollow: (carId: number) => void;
}

/** The star of a vehicle row: a click adds or removes it from the followed cars, never selects the row. */
function FollowStar({ carId, on, onToggle, nodeKey }: { carId: number; on: boolean; onToggle: (carId: number) => void; nodeKey: string }) {
  const { t } = useTranslation('map');
  const label = on ? t('tree.unfollow') : t('tree.follow');
  return (
    <button
      type="button"
      className={`fw-tree-follow${on ? ' fw-tree-follow-on' : ''}`}
      data-testid={`tree-follow-${nodeKey}`}
      data-followed={on ? 'true' : 'false'}
      aria-pressed={on}
      aria-label={label}
      title={label}
      onClick={(event) => {
        event.stopPropagation();
        onToggle(carId);
      }}
    >
      {on ? <StarFilled /> : <StarOutlined />}
    </button>
  );
}

const noStates = { subscribe: () => () => undefined, getVersion: () => 0 };

const AGE_REFRESH_MS = 5000;

export function VehicleTree(props: VehicleTreeProps) {
  const { model, loading, failed, onRetry, states, positions, tab, onTabChange, ticked, onTickedChange, onVehicleClick } = props;
  const { query, onQueryChange, matches, followed, onToggleFollow } = props;
  const { t } = useTranslation('map');
  const search = useDeferredValue(query);
  const [bodyRef, { height }] = useElementSize<HTMLDivElement>();
  const store = states ?? noStates;
  const version = useSyncExternalStore(store.subscribe, store.getVersion);
  const now = useNow(AGE_REFRESH_MS);

  const roots = model?.roots;
  const facts = useMemo<VehicleFacts>(
    () => ({
      isOnline: (id) => id != null && isVehicleOnline(states?.get(id)),
      isAlarming: (id) => id != null && isVehicleAlarming(states?.get(id), positions?.get(id)),
      isFollowed: (carId) => carId != null && followed.has(carId),
    }),
    // New facts when states change (version) or every age tick (alarms arrive with positions).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [states, positions, version, now, followed],
  );
  const counts = useMemo(() => tabCounts(roots ?? [], facts), [roots, facts]);
  const filtered = useMemo(() => {
    const found = matches ? filterVehicles(roots ?? [], (node) => matches.has(node.key)) : { roots: roots ?? [], expandedKeys: [] };
    if (tab === 'all') return found;
    return filterVehicles(found.roots, (node) => inTab(tab, node, facts));
  }, [roots, matches, tab, facts]);
  // each node's tick over all its vehicles: a root is not shown fully ticked when a search hides unticked ones
  const checkedKeys = useMemo(() => checkState(roots ?? [], new Set(ticked)), [roots, ticked]);

  const [userExpanded, setUserExpanded] = useState<string[] | null>(null);
  const [searchExpanded, setSearchExpanded] = useState<{ search: string; keys: string[] } | null>(null);
  const defaultExpanded = useMemo(() => (roots ?? []).flatMap((r) => [r.key, ...(r.children ?? []).filter((c) => c.kind !== 'vehicle').map((c) => c.key)]), [roots]);
  const filtering = search.trim() !== '' || tab !== 'all';
  const filterId = `${tab}|${search}|${matches?.size ?? 0}`;
  const expandedKeys = filtering
    ? searchExpanded?.search === filterId
      ? searchExpanded.keys
      : filtered.expandedKeys
    : (userExpanded ?? defaultExpanded);

  const nodeCounts = useMemo(() => (roots ? countNodes(roots, facts.isOnline) : new Map()), [roots, facts]);

  const tickedSet = useMemo(() => new Set(ticked), [ticked]);
  const renderTitle = useCallback(
    (node: VehicleNode) => {
      if (node.kind === 'vehicle') {
        const state = node.deviceId != null ? states?.get(node.deviceId) : undefined;
        const bizState = shownBizState(state);
        const fix = node.deviceId != null ? positions?.get(node.deviceId) : undefined;
        const speed = fix ? formatNumber(fix.speed) : null;
        const match = matches?.get(node.key);
        return (
          <span
            className="fw-tree-vehicle"
            data-testid={`tree-node-${node.key}`}
            data-checked={tickedSet.has(node.key) ? 'true' : 'false'}
            data-state={bizState}
            data-online={isVehicleOnline(state) ? 1 : 0}
            title={node.disableCheckbox ? t('tree.noDevice') : t(`bizState.${bizState}`)}
          >
            <span className="fw-tree-dot" style={{ background: stateColour(bizState) }} />
            <span className="fw-tree-plate">{node.label}</span>
            {match && match.field !== 'plateNumber' && (
              <span className="fw-tree-match" data-testid={`tree-match-${node.key}`} data-field={match.field}>
                {t(`search.field.${match.field}`)}: {match.value}
              </span>
            )}
            {fix && (
              <span className="fw-tree-live" data-testid={`tree-age-${node.key}`}>
                {speed !== null ? t('units.kmh', { value: speed }) : '-'} · {formatAge(fix.timeMs, now, t)}
              </span>
            )}
            {node.carId != null && <FollowStar carId={node.carId} on={followed.has(node.carId)} onToggle={onToggleFollow} nodeKey={node.key} />}
          </span>
        );
      }
      const count = nodeCounts.get(node.key) ?? { online: 0, total: 0 };
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
    [nodeCounts, states, positions, tickedSet, t, version, now, matches, followed, onToggleFollow],
  );

  const onCheck = (_checked: unknown, info: { checked: boolean; node: { key: Key } }) => {
    const node = findNode(filtered.roots, String(info.node.key));
    if (node) onTickedChange(toggleTicked(ticked, node, info.checked));
  };

  const onSelect = (_: Key[], info: { node: { key: Key } }) => {
    const key = String(info.node.key);
    if (isVehicleKey(key)) {
      onVehicleClick(key);
      return;
    }
    const next = expandedKeys.includes(key) ? expandedKeys.filter((k) => k !== key) : [...expandedKeys, key];
    if (filtering) setSearchExpanded({ search: filterId, keys: next });
    else setUserExpanded(next);
  };

  const onExpand = (keys: Key[]) => {
    const next = keys.map(String);
    if (filtering) setSearchExpanded({ search: filterId, keys: next });
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
        checkStrictly
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
        onChange={(e) => onQueryChange(e.target.value)}
        placeholder={t('tree.searchPlaceholder')}
        data-testid="tree-search"
      />
      <Segmented<TreeTab>
        block
        size="small"
        value={tab}
        onChange={onTabChange}
        aria-label={t('tabs.aria')}
        data-testid="tree-tabs"
        options={TREE_TABS.map((id) => ({
          value: id,
          label: (
            <span data-testid={`tree-tab-${id}`} data-count={counts[id]}>
              {t(`tabs.${id}`)} {counts[id]}
            </span>
          ),
        }))}
      />
      <div className="fw-vehicle-tree-body" ref={bodyRef}>
        {body}
      </div>
      <StateLegend />
    </div>
  );
}
