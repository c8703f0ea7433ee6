/**
 * The focused vehicle's points as a (virtual) table that follows the replay: the current row is
 * highlighted and scrolled into view; clicking a row seeks to it. The alarm column names the point's
 * bit, active-safety and video alarms (cut at 35 characters like the popup, whole in its tooltip).
 */
import { Table, type GetRef } from 'antd';
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber, formatTime, truncateAlarm } from '../map/popup/format';
import { pointAlarmText } from './alarms';
import type { ReplayPoint, VehicleTrack } from './track';

export interface PointTableProps {
  track: VehicleTrack | null;
  current: number | null;
  height: number;
  onSeekTime: (time: number) => void;
}

interface Row extends ReplayPoint {
  key: number;
}

export function PointTable({ track, current, height, onSeekTime }: PointTableProps) {
  const { t } = useTranslation('replay');
  const { t: tMap } = useTranslation('map');
  const table = useRef<GetRef<typeof Table<Row>>>(null);
  const rows = useMemo<Row[]>(() => (track?.points ?? []).map((p, key) => ({ ...p, key })), [track]);

  useEffect(() => {
    if (current !== null && current < rows.length) table.current?.scrollTo({ index: current });
  }, [current, rows]);

  const number = (value: number | null | undefined, digits = 1) => formatNumber(value, digits) ?? '-';
  const columns = [
    { key: 'index', title: '#', width: 64, render: (_: unknown, row: Row) => row.key + 1 },
    { key: 'time', title: tMap('track.time'), width: 170, render: (_: unknown, row: Row) => formatTime(row.time) },
    { key: 'speed', title: tMap('track.speed'), width: 90, render: (_: unknown, row: Row) => number(row.speed) },
    { key: 'direction', title: tMap('track.direction'), width: 80, render: (_: unknown, row: Row) => number(row.direction, 0) },
    { key: 'lng', title: tMap('track.lng'), width: 110, render: (_: unknown, row: Row) => row.lng.toFixed(6) },
    { key: 'lat', title: tMap('track.lat'), width: 110, render: (_: unknown, row: Row) => row.lat.toFixed(6) },
    { key: 'mileage', title: tMap('track.mileage'), width: 100, render: (_: unknown, row: Row) => number(row.mileage) },
    { key: 'acc', title: tMap('track.acc'), width: 90, render: (_: unknown, row: Row) => (row.acc == null ? '-' : tMap(row.acc ? 'acc.on' : 'acc.off')) },
    {
      key: 'alarm',
      title: tMap('track.alarm'),
      width: 200,
      render: (_: unknown, row: Row) => {
        const text = pointAlarmText(row, tMap);
        return text ? <span className="fw-replay-alarm-text" title={text}>{truncateAlarm(text)}</span> : '-';
      },
    },
  ];

  return (
    <Table<Row>
      ref={table}
      data-testid="replay-table"
      size="small"
      virtual
      pagination={false}
      scroll={{ x: 1014, y: height }}
      rowKey="key"
      dataSource={rows}
      columns={columns}
      locale={{ emptyText: t('noPoints') }}
      rowClassName={(row) => (row.key === current ? 'fw-replay-row-current' : '')}
      onRow={(row) => ({ onClick: () => onSeekTime(row.time) })}
    />
  );
}
