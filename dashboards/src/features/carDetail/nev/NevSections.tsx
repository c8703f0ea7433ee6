/** The new-energy detail page's state cards (GB/T 32960): battery pack with its extremes, drive motors,
 * current alarms with their fault codes and, from a 2025 terminal's general fault list, each alarm's own level.
 * Everything from the vehicle's latest nevState row. */
import { Card, Descriptions, Empty, Space, Table, Tag } from 'antd';
import FitDescriptions from '../../../components/FitDescriptions';
import { useTranslation } from 'react-i18next';
import type { ListRecord } from '../../list/types';
import { formatTime } from '../../map/popup/format';
import { alarmKeysOf, chargingStateKey, faultCode, faultCodes, FAULT_LISTS, fixed, gearOf, generalLevels, isCharging, motorsOf, reading, type Motor } from './nevModel';

const dash = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '-' : String(value));

/** A value with its unit ("351.5 V"), or "-". */
function useUnit() {
  const { t } = useTranslation('nev');
  return (value: string | number | null, unit: string) => (value === null ? '-' : t('unit', { value, unit }));
}

export function NevBatteryCard({ state }: { state: ListRecord }) {
  const { t } = useTranslation('nev');
  const unit = useUnit();
  const gear = gearOf(state.gear);
  const charging = chargingStateKey(state.chargingState);
  const which = (sub: unknown, no: unknown) => (reading(no) === null ? '' : ` ${t('which', { pack: dash(reading(sub)), no: reading(no) })}`);
  return (
    <Card size="small" title={t('battery')} data-testid="nev-battery"
          extra={<span>{t('collectedAt')}: {formatTime(state.collectedAt as string)}</span>}>
      <Space size={4} wrap style={{ marginBottom: 12 }}>
        <Tag color={isCharging(state.chargingState) ? 'green' : 'default'} data-testid="nev-chargingState"
             data-value={dash(reading(state.chargingState))}>{t(`chargingState.${charging}`)}</Tag>
        <Tag color="blue" data-testid="nev-gear" data-value={gear ? gear.code : ''}>
          {gear ? t(`gear.${gear.code}`) + (gear.number ? ` ${gear.number}` : '') : `${t('gearName')} -`}
        </Tag>
        {gear?.braking ? <Tag>{t('braking')}</Tag> : null}
        {gear?.driving ? <Tag>{t('drivingForce')}</Tag> : null}
        {reading(state.vehicleStatus) !== null ? <Tag>{t(`vehicleStatus.${String(state.vehicleStatus)}`, { defaultValue: '-' })}</Tag> : null}
      </Space>
      <FitDescriptions size="small" max={4}>
        <Descriptions.Item label={t('soc')}><span data-testid="nev-soc">{unit(reading(state.socPct), '%')}</span></Descriptions.Item>
        <Descriptions.Item label={t('totalVoltage')}><span data-testid="nev-voltage">{unit(fixed(state.totalVoltageV, 1), 'V')}</span></Descriptions.Item>
        <Descriptions.Item label={t('totalCurrent')}><span data-testid="nev-current">{unit(fixed(state.totalCurrentA, 1), 'A')}</span></Descriptions.Item>
        <Descriptions.Item label={t('insulation')}><span data-testid="nev-insulation">{unit(reading(state.insulationKohm), 'kΩ')}</span></Descriptions.Item>
        <Descriptions.Item label={t('speed')}>{unit(fixed(state.speedKmh, 1), 'km/h')}</Descriptions.Item>
        <Descriptions.Item label={t('mileage')}>{unit(fixed(state.mileageKm, 1), 'km')}</Descriptions.Item>
        <Descriptions.Item label={t('maxCellVoltage')}>
          <span data-testid="nev-maxCellVoltage">{unit(fixed(state.maxCellVoltageV, 3), 'V')}{which(state.maxVoltageSubsystem, state.maxVoltageCell)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('minCellVoltage')}>
          <span data-testid="nev-minCellVoltage">{unit(fixed(state.minCellVoltageV, 3), 'V')}{which(state.minVoltageSubsystem, state.minVoltageCell)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('maxTemp')}>
          <span data-testid="nev-maxTemp">{unit(reading(state.maxTempC), '℃')}{which(state.maxTempSubsystem, state.maxTempProbe)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('minTemp')}>
          <span data-testid="nev-minTemp">{unit(reading(state.minTempC), '℃')}{which(state.minTempSubsystem, state.minTempProbe)}</span>
        </Descriptions.Item>
      </FitDescriptions>
    </Card>
  );
}

export function NevMotorsCard({ state }: { state: ListRecord }) {
  const { t } = useTranslation('nev');
  const unit = useUnit();
  const motors = motorsOf(state.motors);
  return (
    <Card size="small" title={t('motors')} data-testid="nev-motors">
      <Table<Motor>
        size="small" rowKey="number" pagination={false} dataSource={motors} scroll={{ x: true }}
        locale={{ emptyText: t('noMotors') }}
        columns={[
          { key: 'number', title: t('motor.number'), dataIndex: 'number', width: 60 },
          { key: 'status', title: t('motor.status'), render: (_, m) => (m.status === null ? '-' : t(`motorStatus.${m.status}`, { defaultValue: String(m.status) })) },
          { key: 'speed', title: t('motor.speed'), render: (_, m) => unit(m.speedRpm, 'r/min') },
          { key: 'torque', title: t('motor.torque'), render: (_, m) => unit(fixed(m.torqueNm, 1), 'N·m') },
          { key: 'temp', title: t('motor.temp'), render: (_, m) => unit(m.tempC, '℃') },
          { key: 'controllerTemp', title: t('motor.controllerTemp'), render: (_, m) => unit(m.controllerTempC, '℃') },
          { key: 'controllerVoltage', title: t('motor.controllerVoltage'), render: (_, m) => unit(fixed(m.controllerVoltageV, 1), 'V') },
          { key: 'dcCurrent', title: t('motor.dcCurrent'), render: (_, m) => unit(fixed(m.dcCurrentA, 1), 'A') },
        ]}
      />
    </Card>
  );
}

export function NevAlarmsCard({ state }: { state: ListRecord }) {
  const { t } = useTranslation(['nev', 'alarmSettings']);
  const keys = alarmKeysOf(state.alarmFlags);
  const level = reading(state.alarmLevel);
  const levels = generalLevels(state.generalFaults); // a 2025 terminal's level per alarm, shown beside its name
  const lists = FAULT_LISTS.map(([name, field]) => [name, faultCodes(state[field])] as const).filter(([, codes]) => codes.length > 0);
  return (
    <Card size="small" title={t('alarms')} data-testid="nev-alarms"
          extra={<span data-testid="nev-alarmLevel" data-value={level ?? ''}>{t('alarmLevel')}: {level === null ? '-' : t(`level.${level}`, { defaultValue: String(level) })}</span>}>
      {keys.length === 0 && lists.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('noAlarms')} data-testid="nev-no-alarms" />
      ) : (
        <Space orientation="vertical" size={8} style={{ width: '100%' }}>
          <Space size={4} wrap data-testid="nev-alarm-flags">
            {keys.map((key) => {
              const own = levels.get(key);
              return (
                <Tag key={key} color="red" data-key={key} data-level={own ?? ''}>
                  <span data-testid="nev-alarm-name">{t(`alarmSettings:enums.alarmKey.${key}`)}</span>
                  {own === undefined ? null : (
                    <span data-testid="nev-alarm-level">{t('ownLevel', { level: t(`level.${own}`, { defaultValue: String(own) }) })}</span>
                  )}
                </Tag>
              );
            })}
          </Space>
          {lists.map(([name, codes]) => (
            <div key={name} data-testid={`nev-faults-${name}`}>
              <b>{t(`faults.${name}`)}:</b>{' '}
              {codes.map((code) => <Tag key={code}>{faultCode(code)}</Tag>)}
            </div>
          ))}
        </Space>
      )}
    </Card>
  );
}
