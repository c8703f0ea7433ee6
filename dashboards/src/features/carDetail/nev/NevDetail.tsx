/**
 * What nevCarDetail adds to the car-detail page (platform-spec §2 car-detail, gb32960): the vehicle's latest
 * GB/T 32960 state (battery pack, cells, motors, alarms with fault codes and levels; the fuel cell, its stacks and
 * the supercapacitor where the vehicle has them), today's SOC / voltage / current and today's charging sessions.
 * The state and today's figures are read again every REFRESH_MS, so the page follows a vehicle that drives or
 * charges.
 */
import { Col, Empty, Card, Row, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ListRecord } from '../../list/types';
import { todayRange } from '../../log/logScreens';
import { fetchChargingSessions, fetchNevReadings, fetchNevState } from './nevApi';
import { NevCellsCard, NevTodayCard } from './NevCharts';
import { NevFuelCellCard, NevSupercapacitorCard } from './NevPowerSources';
import { NevAlarmsCard, NevBatteryCard, NevMotorsCard } from './NevSections';

const REFRESH_MS = 30_000;

interface Reads {
  key: string;
  state: ListRecord | null;
  readings: ListRecord[];
  sessions: ListRecord[];
}

export default function NevDetail({ carId, deviceId }: { carId: number; deviceId: number | null }) {
  const { t } = useTranslation('nev');
  const [reads, setReads] = useState<Reads | null>(null);
  const key = `${carId}:${deviceId ?? ''}`;

  useEffect(() => {
    const controller = new AbortController();
    const load = async () => {
      const day = todayRange();
      const readState = async () => {
        const found = await fetchNevState(carId, deviceId, controller.signal);
        // the readings are the shown terminal's, else those of the terminal whose state is shown
        const terminal = deviceId ?? (typeof found?.deviceId === 'number' ? found.deviceId : null);
        return [found, terminal === null ? [] : await fetchNevReadings(terminal, day, controller.signal)] as const;
      };
      const [[state, readings], sessions] = await Promise.all([
        readState(),
        fetchChargingSessions(carId, day, controller.signal),
      ]);
      if (!controller.signal.aborted) setReads({ key, state, readings, sessions });
    };
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [carId, deviceId, key]);

  const current = reads?.key === key ? reads : null;
  if (current && !current.state) {
    return (
      <Card size="small" title={t('battery')} data-testid="nev-detail" data-state="none">
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('noState')} data-testid="nev-no-state" />
      </Card>
    );
  }
  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="nev-detail" data-state={current ? 'ready' : 'loading'}>
      {current?.state ? (
        <>
          <Row gutter={[12, 12]}>
            <Col xs={24} xl={14}><NevBatteryCard state={current.state} /></Col>
            <Col xs={24} xl={10}><NevAlarmsCard state={current.state} /></Col>
          </Row>
          <NevFuelCellCard state={current.state} />
          <NevSupercapacitorCard state={current.state} />
          <NevCellsCard state={current.state} />
          <NevMotorsCard state={current.state} />
        </>
      ) : null}
      <NevTodayCard readings={current?.readings ?? null} sessions={current?.sessions ?? null} />
    </Space>
  );
}
