/** The new-energy detail page's charts and today's figures: the voltage of every cell and the temperature
 * of every probe (bars, the extremes marked), today's SOC / voltage / current from nevReading, and today's
 * charging sessions. */
import { Card, Col, Empty, Row, Table, Tag } from 'antd';
import dayjs from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { ListRecord } from '../../list/types';
import { formatTime } from '../../map/popup/format';
import EChart from '../../report/charts/EChart';
import { trendOption } from '../../report/charts/options';
import { cellLabels, cellsOf, chargingStateKey, readingSeries, type Cell } from './nevModel';

function cellOption(cells: readonly Cell[], name: string, unit: string, colour: string) {
  const values = cells.map((c) => c.value);
  const known = values.filter((v): v is number => v !== null);
  const min = known.length ? Math.min(...known) : 0;
  const max = known.length ? Math.max(...known) : 0;
  const option = trendOption({ categories: cellLabels(cells), units: [unit], series: [{ name, data: values, colour }], zoomAbove: 120 });
  // the extremes stand out: the highest red, the lowest blue (the extreme-values block names the same cells)
  return {
    ...option,
    yAxis: { ...option.yAxis, min: 'dataMin', max: 'dataMax' },
    series: option.series.map((s) => ({
      ...s,
      barMaxWidth: 10,
      data: values.map((v) => ({ value: v, itemStyle: v !== null && known.length > 1 && (v === max || v === min) ? { color: v === max ? '#f5222f' : '#1677ff' } : undefined })),
    })),
  };
}

export function NevCellsCard({ state }: { state: ListRecord }) {
  const { t } = useTranslation('nev');
  const voltages = useMemo(() => cellsOf(state.cellVoltages, 'cell_voltages_v'), [state.cellVoltages]);
  const temps = useMemo(() => cellsOf(state.probeTemperatures, 'probe_temps_c'), [state.probeTemperatures]);
  const options = useMemo(() => ({
    voltages: cellOption(voltages, t('cellVoltage'), 'V', '#52c41a'),
    temps: cellOption(temps, t('probeTemp'), '℃', '#fa8c16'),
  }), [voltages, temps, t]);
  return (
    <Card size="small" title={t('cells')} data-testid="nev-cells">
      <Row gutter={[12, 12]}>
        <Col xs={24} xl={14}>
          <h4>{t('cellVoltages', { count: voltages.length })}</h4>
          {voltages.length ? <EChart option={options.voltages} height={240} testId="nev-chart-cells" data={{ cells: voltages.length }} />
            : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('noCells')} />}
        </Col>
        <Col xs={24} xl={10}>
          <h4>{t('probeTemps', { count: temps.length })}</h4>
          {temps.length ? <EChart option={options.temps} height={240} testId="nev-chart-probes" data={{ probes: temps.length }} />
            : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('noCells')} />}
        </Col>
      </Row>
    </Card>
  );
}

export function NevTodayCard({ readings, sessions }: { readings: ListRecord[] | null; sessions: ListRecord[] | null }) {
  const { t } = useTranslation('nev');
  const series = useMemo(() => readingSeries(readings ?? [], (iso) => dayjs(iso).format('HH:mm:ss')), [readings]);
  const options = useMemo(() => ({
    soc: trendOption({ categories: series.times, units: ['%'], series: [{ name: t('soc'), data: series.soc, type: 'line', area: true, colour: '#52c41a' }] }),
    power: trendOption({ categories: series.times, units: ['V', 'A'], series: [
      { name: t('totalVoltage'), data: series.voltageV, type: 'line', colour: '#1677ff' },
      { name: t('totalCurrent'), data: series.currentA, type: 'line', yAxisIndex: 1, colour: '#fa8c16' },
    ] }),
  }), [series, t]);
  return (
    <Card size="small" title={t('today')} data-testid="nev-today">
      {series.times.length ? (
        <Row gutter={[12, 12]}>
          <Col xs={24} xl={12}><EChart option={options.soc} height={220} testId="nev-chart-soc" data={{ points: series.times.length }} /></Col>
          <Col xs={24} xl={12}><EChart option={options.power} height={220} testId="nev-chart-power" data={{ points: series.times.length }} /></Col>
        </Row>
      ) : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={readings === null ? t('loading') : t('noReadings')} data-testid="nev-no-readings" />}
      <h4 style={{ marginTop: 12 }}>{t('sessionsToday')}</h4>
      <Table<ListRecord>
        size="small" rowKey={(r) => String(r.id)} pagination={false} dataSource={sessions ?? []} loading={sessions === null}
        data-testid="nev-sessions" locale={{ emptyText: t('noSessions') }} scroll={{ x: true }}
        columns={[
          { key: 'start', title: t('session.start'), render: (_, r) => formatTime(r.startTime as string) },
          { key: 'end', title: t('session.end'), render: (_, r) => (r.endTime ? formatTime(r.endTime as string) : <Tag color="green">{t('session.ongoing')}</Tag>) },
          { key: 'state', title: t('chargingStateName'), render: (_, r) => t(`chargingState.${chargingStateKey(r.chargingState)}`) },
          { key: 'soc', title: t('session.soc'), render: (_, r) => `${String(r.socFrom ?? '-')}% → ${String(r.socTo ?? '-')}%` },
          { key: 'energy', title: t('session.energy'), render: (_, r) => (r.energyKwh === null || r.energyKwh === undefined ? '-' : `${Number(r.energyKwh).toFixed(2)} kWh`) },
        ]}
      />
    </Card>
  );
}
