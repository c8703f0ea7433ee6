/**
 * Area vehicle search (label point business type 4, platform-spec §9; `POST /api/fence/areaSearch.json`):
 * draw a circle, rectangle or polygon, choose a window of at most 24 h, and list the vehicles that were
 * inside with their entry and exit times, each linking to its replay around the visit.
 */
import { Button, Card, DatePicker, Radio, Space, Table } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { searchArea, type AreaVisit } from './api';
import { replayHref, visitsOf, windowProblem } from './areaSearch';
import { FenceMap } from './FenceMap';
import type { Shape } from './geometry';
import { useFenceGeometry } from './useFenceGeometry';

const SHAPES: Shape[] = ['polygon', 'rectangle', 'circle'];
const lastHour = (): [Dayjs, Dayjs] => [dayjs().subtract(1, 'hour'), dayjs()];
const format = (value: string | null) => (value ? dayjs(value).format('YYYY-MM-DD HH:mm:ss') : '—');

export default function AreaSearchPage() {
  const { t } = useTranslation('fence');
  const [shape, setShape] = useState<Shape>('polygon');
  const area = useFenceGeometry(shape, undefined, null);
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(lastHour);
  // Until the user picks a window, a search covers the hour up to the moment it is made.
  const [picked, setPicked] = useState(false);
  const [rows, setRows] = useState<AreaVisit[] | null>(null);
  const [searched, setSearched] = useState<[number, number]>([0, 0]);
  const [loading, setLoading] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const search = async () => {
    const span = picked ? range : lastHour();
    if (!picked) setRange(span);
    const found = area.geometry ? windowProblem(span) : 'fence.errors.noGeometry';
    setProblem(found);
    if (found || !span || !area.geometry) return;
    setLoading(true);
    const reply = await searchArea(area.geometry, span[0].toISOString(), span[1].toISOString());
    setLoading(false);
    if (reply.code !== 0) return; // the one failure handler has said why
    setSearched([span[0].valueOf(), span[1].valueOf()]);
    setRows(visitsOf(reply.data));
  };

  return (
    <Card title={t('areaSearch.title')} data-testid="area-search">
      <Space wrap style={{ marginBottom: 12 }}>
        <Radio.Group data-testid="area-search-shape" value={shape} onChange={(e) => setShape(e.target.value as Shape)}
          options={SHAPES.map((s) => ({ value: s, label: t(`fence.enums.shape.${s}`) }))} />
        <DatePicker.RangePicker showTime value={range} data-testid="area-search-range"
          onChange={(value) => {
            setPicked(true);
            setRange(value && value[0] && value[1] ? [value[0], value[1]] : null);
          }} />
        <Button type="primary" loading={loading} onClick={() => void search()} data-testid="area-search-submit">{t('areaSearch.search')}</Button>
        {problem && <span className="fence-problems" data-testid="area-search-problem">{t(problem)}</span>}
      </Space>
      <p>{t('fence.drawHint')}</p>
      <FenceMap shape={shape} drawn={area.drawn} onChange={area.onDrawn} onCoord={area.setCoord} />
      {rows !== null && (
        <Table<AreaVisit> size="small" rowKey={(row) => `${row.carId}-${row.enterTime ?? ''}`} dataSource={rows} data-testid="area-search-results"
          style={{ marginTop: 12 }} onRow={(row) => ({ 'data-testid': `area-visit-${row.carId}` } as object)}
          columns={[
            { key: 'plate', title: t('binding.plateNumber'), dataIndex: 'plateNumber' },
            { key: 'enterprise', title: t('fence.fields.enterpriseName'), dataIndex: 'enterpriseName' },
            { key: 'enter', title: t('areaSearch.enterTime'), render: (_v, row) => format(row.enterTime) },
            { key: 'exit', title: t('areaSearch.exitTime'), render: (_v, row) => format(row.exitTime) },
            {
              key: 'replay', title: '',
              render: (_v, row) => (
                <Link to={replayHref(row, searched[0], searched[1])} data-testid={`area-visit-replay-${row.carId}`}>{t('areaSearch.replay')}</Link>
              ),
            },
          ]} />
      )}
    </Card>
  );
}
