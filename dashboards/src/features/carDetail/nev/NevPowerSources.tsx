/** The new-energy detail page's other power sources (GB/T 32960): the fuel cell with its hydrogen system (0x03 of
 * either edition) and the 2025 edition's fuel-cell stacks (0x30), and the 2025 edition's supercapacitor (0x31) with
 * its extremes (0x32). Each card only when the vehicle's latest nevState row has its blocks: a battery-electric
 * vehicle shows neither. */
import { Card, Descriptions, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import FitDescriptions from '../../../components/FitDescriptions';
import type { ListRecord } from '../../list/types';
import { fixed, fuelCellOf, stacksOf, supercapacitorOf, type Extreme, type FuelCellStack } from './nevModel';

function useReadings() {
  const { t } = useTranslation('nev');
  const unit = (value: string | number | null, name: string) => (value === null ? '-' : t('unit', { value, unit: name }));
  const which = (key: 'probe' | 'sensor', no: number | null) => (no === null ? '' : ` ${t(`fuelCell.${key}`, { no })}`);
  const extreme = (x: Extreme, digits: number, name: string) => unit(fixed(x.value, digits), name)
    + (x.no === null ? '' : ` ${t('which', { pack: x.system ?? '-', no: x.no })}`);
  return { t, unit, which, extreme };
}

export function NevFuelCellCard({ state }: { state: ListRecord }) {
  const { t, unit, which } = useReadings();
  const cell = fuelCellOf(state.fuelCell);
  const stacks = stacksOf(state.fuelCellStacks);
  if (!cell && stacks.length === 0) return null;
  return (
    <Card size="small" title={t('fuelCell.title')} data-testid="nev-fuel-cell">
      {cell ? (
        <FitDescriptions size="small" max={3}>
          {cell.voltageV !== null || cell.currentA !== null ? (
            <>
              <Descriptions.Item label={t('fuelCell.voltage')}>{unit(fixed(cell.voltageV, 1), 'V')}</Descriptions.Item>
              <Descriptions.Item label={t('fuelCell.current')}>{unit(fixed(cell.currentA, 1), 'A')}</Descriptions.Item>
              <Descriptions.Item label={t('fuelCell.h2Consumption')}>{unit(fixed(cell.h2ConsumptionKgPer100km, 2), 'kg/100km')}</Descriptions.Item>
            </>
          ) : null}
          {cell.h2RemainingPct !== null ? (
            <Descriptions.Item label={t('fuelCell.h2Remaining')}>
              <span data-testid="nev-h2Remaining">{unit(cell.h2RemainingPct, '%')}</span>
            </Descriptions.Item>
          ) : null}
          <Descriptions.Item label={t('fuelCell.maxH2Temp')}>
            <span data-testid="nev-maxH2Temp">{unit(fixed(cell.maxH2TempC, 1), '℃')}{which('probe', cell.maxH2TempProbe)}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('fuelCell.maxH2Concentration')}>
            {cell.concentrationInPpm ? unit(cell.maxH2Concentration, 'ppm') : (fixed(cell.maxH2Concentration, 4) ?? '-')}
            {which('sensor', cell.maxH2ConcentrationSensor)}
          </Descriptions.Item>
          <Descriptions.Item label={t('fuelCell.maxH2Pressure')}>
            <span data-testid="nev-maxH2Pressure">{unit(fixed(cell.maxH2PressureMpa, 1), 'MPa')}{which('sensor', cell.maxH2PressureSensor)}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('fuelCell.dcdc')}>
            {cell.dcdc === null ? '-' : t(`dcdcState.${cell.dcdc}`, { defaultValue: String(cell.dcdc) })}
          </Descriptions.Item>
          {cell.dcdcControllerTempC !== null ? (
            <Descriptions.Item label={t('fuelCell.dcdcControllerTemp')}>{unit(cell.dcdcControllerTempC, '℃')}</Descriptions.Item>
          ) : null}
          {cell.probes.count > 0 ? (
            <Descriptions.Item label={t('fuelCell.probeTemps')}>
              {t('fuelCell.probeSpread', { max: cell.probes.max ?? '-', min: cell.probes.min ?? '-', count: cell.probes.count })}
            </Descriptions.Item>
          ) : null}
        </FitDescriptions>
      ) : null}
      {stacks.length > 0 ? (
        <Table<FuelCellStack>
          size="small" rowKey="number" pagination={false} dataSource={stacks} scroll={{ x: true }}
          data-testid="nev-stacks" style={{ marginTop: cell ? 12 : 0 }}
          columns={[
            { key: 'number', title: t('fuelCell.stack.number'), dataIndex: 'number', width: 70 },
            { key: 'voltage', title: t('fuelCell.stack.voltage'), render: (_, s) => unit(fixed(s.voltageV, 1), 'V') },
            { key: 'current', title: t('fuelCell.stack.current'), render: (_, s) => unit(fixed(s.currentA, 1), 'A') },
            { key: 'h2', title: t('fuelCell.stack.h2InletPressure'), render: (_, s) => unit(fixed(s.h2InletPressureKpa, 1), 'kPa') },
            { key: 'air', title: t('fuelCell.stack.airInletPressure'), render: (_, s) => unit(fixed(s.airInletPressureKpa, 1), 'kPa') },
            { key: 'airTemp', title: t('fuelCell.stack.airInletTemp'), render: (_, s) => unit(s.airInletTempC, '℃') },
            { key: 'coolant', title: t('fuelCell.stack.coolantOutletTemp'), render: (_, s) => unit(s.coolantOutletMaxC, '℃') },
          ]}
        />
      ) : null}
    </Card>
  );
}

export function NevSupercapacitorCard({ state }: { state: ListRecord }) {
  const { t, unit, extreme } = useReadings();
  const cap = supercapacitorOf(state.supercapacitor, state.supercapacitorExtremes);
  if (!cap) return null;
  return (
    <Card size="small" title={t('supercap.title')} data-testid="nev-supercap">
      <FitDescriptions size="small" max={2}>
        <Descriptions.Item label={t('supercap.voltage')}>
          <span data-testid="nev-supercap-voltage">{unit(fixed(cap.voltageV, 1), 'V')}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('supercap.current')}>{unit(fixed(cap.currentA, 1), 'A')}</Descriptions.Item>
        <Descriptions.Item label={t('supercap.maxCellVoltage')}>
          <span data-testid="nev-supercap-maxCellVoltage">{extreme(cap.maxCellVoltage, 3, 'V')}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('supercap.minCellVoltage')}>{extreme(cap.minCellVoltage, 3, 'V')}</Descriptions.Item>
        <Descriptions.Item label={t('supercap.maxTemp')}>{extreme(cap.maxTemp, 0, '℃')}</Descriptions.Item>
        <Descriptions.Item label={t('supercap.minTemp')}>{extreme(cap.minTemp, 0, '℃')}</Descriptions.Item>
        <Descriptions.Item label={t('supercap.cells')}>{cap.cells}</Descriptions.Item>
        <Descriptions.Item label={t('supercap.probes')}>{cap.probes}</Descriptions.Item>
      </FitDescriptions>
    </Card>
  );
}
