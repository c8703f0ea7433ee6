/**
 * The live vehicle table under the map (the tree's overview): the vehicles of the tree's
 * current tab (and search) with state, speed and age of the last fix, the address on demand; a click
 * selects the vehicle (ticks it) and zooms the map to it. Refreshed every few seconds, not per position.
 */
import { Button, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { stateColour } from '../../../live/bizState';
import type { LiveHub } from '../../../live/LiveHub';
import { useNow } from '../hooks/useNow';
import { formatAge, formatCoordinate, formatNumber } from '../popup/format';
import { useAddress } from '../popup/useAddress';
import type { TreeModel, TreeTab } from '../tree/treeModel';
import type { VehicleMatch } from '../tree/vehicleSearch';
import { liveRows, type LiveRow } from './liveRows';

export interface LiveVehicleTableProps {
  hub: LiveHub | null;
  model: TreeModel | null;
  tab: TreeTab;
  /** The search box's matches (null: no search). */
  matches?: Map<string, VehicleMatch> | null;
  selectedKey: string | null;
  onSelect: (key: string) => void;
  /** The user's followed cars, for the followed tab. */
  followed: ReadonlySet<number>;
}

const REFRESH_MS = 3000;
const PAGE_SIZES = ['10', '20', '30', '50', '100'];
const noStates = { subscribe: () => () => undefined, getVersion: () => 0 };

function AddressCell({ lng, lat }: { lng: number; lat: number }) {
  const { t } = useTranslation('map');
  const address = useAddress(lng, lat);
  return <span title={formatCoordinate(lng, lat)}>{address ?? `${t('table.loadingAddress')} ${formatCoordinate(lng, lat)}`}</span>;
}

export function LiveVehicleTable({ hub, model, tab, matches = null, followed, selectedKey, onSelect }: LiveVehicleTableProps) {
  const { t } = useTranslation('map');
  const now = useNow(REFRESH_MS);
  const store = hub?.states ?? noStates;
  const version = useSyncExternalStore(store.subscribe, store.getVersion);
  const [addressShown, setAddressShown] = useState<Set<string>>(() => new Set());
  const [pageSize, setPageSize] = useState(10);

  const rows = useMemo(
    () => (model && hub ? liveRows(model, tab, (id) => hub.states.get(id), (id) => hub.positions.get(id), matches, followed) : []),
    // Recomputed on state changes and every REFRESH_MS (positions change too often to follow each).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [model, hub, tab, matches, followed, version, now],
  );

  const columns: ColumnsType<LiveRow> = [
    { title: t('table.plate'), dataIndex: 'plate', key: 'plate', width: 120, ellipsis: true },
    {
      title: t('table.state'),
      key: 'state',
      width: 90,
      render: (_, row) => (
        <Tag color={row.online ? stateColour(row.bizState) : 'default'} data-testid={`live-row-state-${row.key}`} data-online={row.online ? 1 : 0}>
          {t(`bizState.${row.bizState}`)}
        </Tag>
      ),
    },
    {
      title: t('table.speed'),
      key: 'speed',
      width: 100,
      render: (_, row) => {
        const speed = formatNumber(row.speed);
        return speed === null ? '-' : t('units.kmh', { value: speed });
      },
    },
    { title: t('table.age'), key: 'age', width: 110, render: (_, row) => (row.timeMs ? formatAge(row.timeMs, now, t) : t('table.noFix')) },
    {
      title: t('table.address'),
      key: 'address',
      ellipsis: true,
      render: (_, row) => {
        if (row.lng === null || row.lat === null) return '-';
        if (addressShown.has(row.key)) return <AddressCell lng={row.lng} lat={row.lat} />;
        return (
          <Button
            size="small"
            type="link"
            data-testid={`live-row-address-${row.key}`}
            onClick={(event) => {
              event.stopPropagation();
              setAddressShown((previous) => new Set(previous).add(row.key));
            }}
          >
            {t('table.showAddress')}
          </Button>
        );
      },
    },
  ];

  return (
    <div className="fw-live-table" data-testid="live-vehicle-table">
      <Table<LiveRow>
        size="small"
        rowKey="key"
        columns={columns}
        dataSource={rows}
        scroll={{ y: 150 }}
        rowClassName={(row) => (row.key === selectedKey ? 'fw-live-row-selected' : '')}
        onRow={(row) => ({ onClick: () => row.deviceId !== null && onSelect(row.key), 'data-testid': `live-row-${row.key}` }) as never}
        pagination={{
          size: 'small',
          pageSize,
          pageSizeOptions: PAGE_SIZES,
          showSizeChanger: true,
          onShowSizeChange: (_, size) => setPageSize(size),
          showTotal: (total) => t('table.total', { total }),
        }}
      />
    </div>
  );
}
