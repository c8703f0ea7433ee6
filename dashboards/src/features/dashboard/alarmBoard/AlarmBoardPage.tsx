/**
 * The alarm dashboard (route /dashboard/alarm; platform-spec §2 dashboard alarm, console-spec §1) for a supervisor:
 * today / this week / this month; the dashboard index's alarm figures (vehicles with alarms, the bell's unhandled,
 * active safety, alarms by type: the same reads, so the same numbers), the range's handled / unhandled and alarms by
 * level, the trend per hour (today) or day, the top vehicles and enterprises of the caller's tree, and the newest
 * unhandled alarms, live on push 2.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Col, Empty, Row, Segmented, Space, Statistic, Table, Typography } from 'antd';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { CountRange } from '../../alarm/api';
import EChart from '../../report/charts/EChart';
import { rankingOption, shareOption, trendOption } from '../../report/charts/options';
import LatestUnhandled from './LatestUnhandled';
import { bucketLabel, handledRate, totalByType, type AlarmBoard } from './model';
import { useAlarmBoard } from './useAlarmBoard';

const RANGES: CountRange[] = ['today', 'week', 'month'];
const RED = '#f5222f';
const GREEN = '#52c41a';

function Figure({ id, title, value, colour, suffix }: { id: string; title: string; value: number | null; colour?: string; suffix?: ReactNode }) {
  return (
    <Statistic title={title} value={value ?? '-'} suffix={suffix} styles={colour ? { content: { color: colour } } : undefined}
      valueRender={(node) => <span data-testid={`board-${id}`} data-value={value ?? ''}>{node}</span>} />
  );
}

function Chart({ title, option, testId, empty }: { title: string; option: object; testId: string; empty: boolean }) {
  return (
    <Card title={title} size="small">
      {empty ? <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} /> : <EChart option={option} height={260} testId={testId} />}
    </Card>
  );
}

type TopRow = AlarmBoard['topVehicles'][number] | AlarmBoard['topEnterprises'][number];

export default function AlarmBoardPage() {
  const { t } = useTranslation('dashboard');
  const [range, setRange] = useState<CountRange>('today');
  const [refreshKey, setRefreshKey] = useState(0);
  const state = useAlarmBoard(range, refreshKey);
  const board = state?.board ?? null;
  const counts = state?.counts ?? null;

  const charts = useMemo(() => ({
    byType: rankingOption((counts?.byType ?? []).slice(0, 10).map((r) => ({ name: r.desc, value: r.count })), t('alarmBoard.alarms'), { colour: RED }),
    byLevel: shareOption((board?.byLevel ?? []).map((r) => ({
      name: r.level === null ? t('alarmBoard.noLevel') : t(`alarmBoard.levels.${r.level}`, { defaultValue: String(r.level) }), value: r.count,
    })), t('alarmBoard.alarms')),
    handling: shareOption([
      { name: t('alarmBoard.unhandledRange'), value: board?.unhandled ?? 0, colour: RED },
      { name: t('alarmBoard.handled'), value: board?.handled ?? 0, colour: GREEN },
    ], t('alarmBoard.alarms')),
    trend: trendOption({
      categories: (board?.trend ?? []).map((b) => bucketLabel(b.at)),
      series: [{ name: t('alarmBoard.alarms'), data: (board?.trend ?? []).map((b) => b.count), type: 'line', area: true, colour: RED }],
    }),
  }), [board, counts, t]);

  const topColumns = (name: (row: TopRow) => ReactNode) => [
    { key: 'name', title: t('alarmBoard.name'), render: (_: unknown, row: TopRow) => name(row) },
    { key: 'count', title: t('alarmBoard.alarms'), dataIndex: 'count' },
    { key: 'unhandled', title: t('alarmBoard.unhandledRange'), dataIndex: 'unhandled' },
  ];

  return (
    <div data-testid="alarm-board" data-range={range} data-loaded={state ? 'true' : 'false'}>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={4} style={{ margin: 0 }}>{t('alarmBoard.title')}</Typography.Title>
        <Space>
          <Segmented<CountRange> value={range} onChange={setRange} data-testid="alarm-board-range"
            options={RANGES.map((value) => ({ value, label: t(`running.range.${value}`) }))} />
          <Button icon={<ReloadOutlined />} onClick={() => setRefreshKey((n) => n + 1)} data-testid="alarm-board-refresh">{t('refresh')}</Button>
        </Space>
      </Space>
      <Card loading={!state}>
        <Row gutter={[16, 16]}>
          <Col xs={12} md={4}><Figure id="total" title={t('alarmBoard.total')} value={counts ? totalByType(counts) : null} /></Col>
          <Col xs={12} md={4}><Figure id="alarmingVehicles" title={t('alarmBoard.alarmingVehicles')} value={counts?.alarmingVehicles ?? null} /></Col>
          <Col xs={12} md={4}><Figure id="activeSafety" title={t('alarmBoard.activeSafety')} value={counts?.activeSafety ?? null} colour={RED} /></Col>
          <Col xs={12} md={4}><Figure id="unhandledRange" title={t('alarmBoard.unhandledRange')} value={board?.unhandled ?? null} colour={RED} /></Col>
          <Col xs={12} md={4}>
            <Figure id="handled" title={t('alarmBoard.handled')} value={board?.handled ?? null} colour={GREEN}
              suffix={<Typography.Text type="secondary" style={{ fontSize: 14 }}>{`${handledRate(board)}%`}</Typography.Text>} />
          </Col>
          <Col xs={12} md={4}>
            <Link to="/list/alarm"><Figure id="unhandled" title={t('alarmBoard.unhandledAll')} value={counts?.unhandled ?? null} colour={RED} /></Link>
          </Col>
        </Row>
      </Card>
      <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
        <Col xs={24} lg={12}><Chart title={t('alarmBoard.byType')} option={charts.byType} testId="board-by-type" empty={!counts?.byType.length} /></Col>
        <Col xs={24} lg={12}><Chart title={t('alarmBoard.trend')} option={charts.trend} testId="board-trend" empty={!board?.total} /></Col>
        <Col xs={24} lg={12}><Chart title={t('alarmBoard.byLevel')} option={charts.byLevel} testId="board-by-level" empty={!board?.byLevel.length} /></Col>
        <Col xs={24} lg={12}><Chart title={t('alarmBoard.handling')} option={charts.handling} testId="board-handling" empty={!board?.total} /></Col>
        <Col xs={24} lg={12}>
          <Card title={t('alarmBoard.topVehicles')} size="small" data-testid="board-top-vehicles">
            <Table<TopRow> size="small" pagination={false} rowKey={(row) => ('carId' in row ? row.carId : row.enterpriseId)}
              dataSource={board?.topVehicles ?? []}
              columns={topColumns((row) => ('carId' in row
                ? <Link to={`/list/carDetail?carId=${row.carId}`} data-testid={`top-vehicle-${row.carId}`}>{row.plateNumber}</Link> : null))} />
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card title={t('alarmBoard.topEnterprises')} size="small" data-testid="board-top-enterprises">
            <Table<TopRow> size="small" pagination={false} rowKey={(row) => ('enterpriseId' in row ? row.enterpriseId : row.carId)}
              dataSource={board?.topEnterprises ?? []}
              columns={topColumns((row) => ('enterpriseName' in row ? <span data-testid={`top-enterprise-${row.enterpriseId}`}>{row.enterpriseName}</span> : null))} />
          </Card>
        </Col>
      </Row>
      <LatestUnhandled version={state?.version ?? 0} />
    </div>
  );
}
