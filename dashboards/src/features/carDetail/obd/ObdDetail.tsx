/**
 * The heavy-diesel detail cards (g6CarDetail, hj1239CarDetail, db4403t363CarDetail; platform-spec §2
 * car-detail variants): OBD status (standard, OBD protocol, MIL, VIN, calibration id, CVN, the monitors'
 * support and readiness), the OBD fault codes read per OBD protocol (faultCodes.ts), the engine /
 * after-treatment data stream of the latest frame, and today's NOx and reagent charts. Shown under the
 * generic page's cards, from the master terminal's `nevState` row and its `nevReading` rows since midnight
 * UTC+8. One component for the three variants: they differ only in the standard named (obd.ts).
 */
import { Card, Col, Descriptions, Empty, Row, Space, Spin, Tag, Tooltip, Typography } from 'antd';
import FitDescriptions from '../../../components/FitDescriptions';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../map/popup/format';
import { LoadedEChart } from '../../report/charts/LoadedEChart';
import { fetchObdState, fetchReadings } from './api';
import { decodeFaultCode, faultCodeLabel, fmiKey } from './faultCodes';
import {
  CHART_FIELDS, milState, monitors, OBD_VARIANTS, obdProtocolKey, readingSeries, readingText,
  STREAM_FIELDS, type ObdRouteName, type ObdState, type Reading,
} from './obd';

const dash = (value: unknown) => (value === null || value === undefined || value === '' ? '-' : String(value));
const MONITOR_COLOURS = { complete: 'success', incomplete: 'warning', unsupported: 'default' } as const;

export interface ObdDetailProps {
  route: ObdRouteName;
  deviceId: number;
  /** Today's start (ISO, midnight UTC+8) as the detail read gave it. */
  since: string;
}

export default function ObdDetail({ route, deviceId, since }: ObdDetailProps) {
  const { t } = useTranslation('obd');
  const [state, setState] = useState<{ deviceId: number; row: ObdState | null | undefined } | null>(null);
  const [readings, setReadings] = useState<{ deviceId: number; rows: Reading[] | null } | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    void fetchObdState(deviceId, controller.signal).then((row) => {
      if (!controller.signal.aborted) setState({ deviceId, row });
    });
    void fetchReadings(deviceId, since, new Date(Date.now() + 60_000).toISOString(), controller.signal).then((rows) => {
      if (!controller.signal.aborted) setReadings({ deviceId, rows });
    });
    return () => controller.abort();
  }, [deviceId, since]);

  const row = state?.deviceId === deviceId ? state.row : undefined;
  const loading = state?.deviceId !== deviceId;
  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="obd-detail" data-route={route}>
      {loading ? <Spin style={{ display: 'block', margin: 24 }} /> : row ? (
        <>
          <Row gutter={[12, 12]}>
            <Col xs={24} xl={14}><ObdStatusCard route={route} row={row} /></Col>
            <Col xs={24} xl={10}><FaultCodesCard row={row} /></Col>
          </Row>
          <StreamCard row={row} />
        </>
      ) : (
        <Card size="small" title={t('sections.status')}>
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t(row === null ? 'empty.state' : 'empty.failed')}
                 data-testid="obd-no-state" />
        </Card>
      )}
      <ReadingsCard rows={readings?.deviceId === deviceId ? readings.rows : undefined} />
    </Space>
  );
}

function ObdStatusCard({ route, row }: { route: ObdRouteName; row: ObdState }) {
  const { t } = useTranslation('obd');
  const mil = milState(row.mil);
  const protocol = obdProtocolKey(row.obdProtocol);
  const list = monitors(row.diagnosisSupported, row.diagnosisReady);
  return (
    <Card size="small" title={t('sections.status')} data-testid="obd-status"
          extra={<Tag color="blue" data-testid="obd-standard">{t(`standard.${OBD_VARIANTS[route].standard}`)}</Tag>}>
      <FitDescriptions size="small" max={2}>
        <Descriptions.Item label={t('fields.mil')}>
          <Tag color={mil === 'on' ? 'error' : mil === 'off' ? 'success' : 'default'} data-testid="obd-mil" data-mil={mil}>
            {t(`mil.${mil}`)}
          </Tag>
        </Descriptions.Item>
        <Descriptions.Item label={t('fields.obdProtocol')}>
          <span data-testid="obd-protocol">{protocol === null ? '-' : t(`obdProtocol.${protocol}`)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('fields.vin')}><span data-testid="obd-vin">{dash(row.vin)}</span></Descriptions.Item>
        <Descriptions.Item label={t('fields.collectedAt')}>{row.collectedAt ? formatTime(row.collectedAt) : '-'}</Descriptions.Item>
        <Descriptions.Item label={t('fields.calibrationId')}><span data-testid="obd-calibrationId">{dash(row.calibrationId)}</span></Descriptions.Item>
        <Descriptions.Item label={t('fields.cvn')}><span data-testid="obd-cvn">{dash(row.cvn)}</span></Descriptions.Item>
      </FitDescriptions>
      <div style={{ marginTop: 8 }}>{t('fields.monitors')}</div>
      {list.length ? (
        <Space size={[4, 4]} wrap data-testid="obd-monitors">
          {list.map((m) => (
            <Tag key={m.key} color={MONITOR_COLOURS[m.state]} data-testid={`obd-monitor-${m.key}`} data-state={m.state}>
              {t(`monitor.${m.key}`)}: {t(`monitorState.${m.state}`)}
            </Tag>
          ))}
        </Space>
      ) : <span>-</span>}
    </Card>
  );
}

/** Each code as its OBD protocol writes it (faultCodes.ts): SAE J1939 as SPN / FMI with the FMI's meaning and
 * the occurrence count, ISO 15765 / 27145 as the SAE J2012 DTC; the code as sent in the tooltip. */
function FaultCodesCard({ row }: { row: ObdState }) {
  const { t } = useTranslation('obd');
  const faults = (row.obdFaultCodes ?? []).map((code) => decodeFaultCode(code, row.obdProtocol));
  return (
    <Card size="small" title={t('sections.faults', { n: faults.length })} data-testid="obd-faults">
      {faults.length ? (
        <Space orientation="vertical" size={4}>
          {faults.map((fault, index) => {
            const item = (
              <div data-testid="obd-fault-code" data-kind={fault.kind} data-raw={fault.raw}>
                <Tag color="error" data-testid="obd-fault-dtc">{faultCodeLabel(fault)}</Tag>
                {fault.kind === 'j1939' ? (
                  <Typography.Text type="secondary" data-testid="obd-fault-detail">
                    {t(`fmi.${fmiKey(fault.fmi)}`)}
                    {' · '}
                    {fault.occurrences === null ? t('fault.occurrencesUnknown') : t('fault.occurrences', { n: fault.occurrences })}
                  </Typography.Text>
                ) : null}
              </div>
            );
            if (fault.kind === 'raw' && fault.reason === 'protocol') return <div key={index}>{item}</div>;
            const tip = fault.kind === 'raw' ? 'fault.conversionMethod' : 'fault.raw';
            return <Tooltip key={index} title={t(tip, { raw: fault.raw })}>{item}</Tooltip>;
          })}
        </Space>
      ) : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('empty.faults')} data-testid="obd-no-faults" />}
    </Card>
  );
}

function StreamCard({ row }: { row: ObdState }) {
  const { t } = useTranslation('obd');
  return (
    <Card size="small" title={t('sections.stream')} data-testid="obd-stream">
      <FitDescriptions size="small" max={4}>
        {STREAM_FIELDS.map(([field, unit, digits]) => {
          const value = readingText(row[field], digits);
          return (
            <Descriptions.Item key={field} label={t(`stream.${field}`)}>
              <span data-testid={`obd-${field}`}>{value === null ? '-' : t(`units.${unit}`, { value })}</span>
            </Descriptions.Item>
          );
        })}
      </FitDescriptions>
    </Card>
  );
}

function ReadingsCard({ rows }: { rows: Reading[] | null | undefined }) {
  const { t } = useTranslation('obd');
  const series = useMemo(() => readingSeries(rows ?? []), [rows]);
  const option = useMemo(() => ({
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 48, right: 48, top: 36, bottom: 56 },
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 16, bottom: 8 }],
    xAxis: { type: 'time' },
    yAxis: [{ type: 'value', name: 'ppm' }, { type: 'value', name: '%', min: 0, max: 100 }],
    series: CHART_FIELDS.map((field) => ({
      name: t(`stream.${field}`), type: 'line', showSymbol: false, connectNulls: false,
      yAxisIndex: field === 'reagentLevelPct' ? 1 : 0, data: series[field],
    })),
  }), [series, t]);
  const count = rows?.length ?? 0;
  return (
    <Card size="small" title={t('sections.today')} data-testid="obd-readings" data-count={count}>
      {rows === undefined ? <Spin style={{ display: 'block', margin: 24 }} /> : count ? (
        <LoadedEChart option={option} height={300} testId="obd-chart" data={{ points: count }} />
      ) : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t(rows === null ? 'empty.failed' : 'empty.readings')}
                 data-testid="obd-no-readings" />}
    </Card>
  );
}
