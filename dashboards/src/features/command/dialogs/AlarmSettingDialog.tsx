import { Alert, Form, InputNumber, Spin, Tabs } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { readTerminalParams } from '../api';
import { ALARM_TABS, type AlarmField } from '../paramCatalogue';
import { alarmValuesFrom } from '../payloads';
import { checkAlarmField } from '../validation';
import { DeviceSelect } from './DeviceSelect';
import type { DialogBodyProps } from './types';

type ReadState = 'reading' | 'ok' | 'unanswered' | 'refused';

function FieldInput({ field }: { field: AlarmField }) {
  const { t } = useTranslation('command');
  return (
    <Form.Item
      name={field.name}
      label={t(`alarm.fields.${field.name}`)}
      extra={t('alarm.rangeHint', { min: field.min, max: field.max, unit: t(`units.${field.unit}`) })}
      rules={[{
        validator: (_, value) => {
          const problem = checkAlarmField(field, value);
          return problem ? Promise.reject(new Error(t(problem, { min: field.min, max: field.max }))) : Promise.resolve();
        },
      }]}
    >
      <InputNumber style={{ width: 200 }} addonAfter={t(`units.${field.unit}`)} data-testid={`alarm-${field.name}`} />
    </Form.Item>
  );
}

/**
 * 对【plate】进行报警配置: left tabs (overspeed 1, fatigue 2, parking timeout 4, out-of-bounds 5,
 * other 6). The terminal's current values are read first (8104, then the stored 0x0104 answer) into the
 * fields not typed in meanwhile.
 */
export function AlarmSettingBody({ devices, form, defaultDeviceId, carId, activeTab, onTab }: DialogBodyProps & { carId: number; activeTab: string; onTab: (key: string) => void }) {
  const { t } = useTranslation('command');
  const deviceId = (Form.useWatch('deviceId', form) as number | undefined) ?? defaultDeviceId;
  const [read, setRead] = useState<{ deviceId: number | undefined; state: ReadState }>({ deviceId: undefined, state: 'reading' });
  useEffect(() => {
    if (deviceId === undefined) return undefined;
    const controller = new AbortController();
    void readTerminalParams({ carId, deviceId }, deviceId, { signal: controller.signal }).then((outcome) => {
      if (controller.signal.aborted) return;
      // The terminal's values fill the fields the user has not typed in yet: its answer can come seconds
      // after the dialog opened, and it must not overwrite (and then send) what the user already entered.
      if (outcome.kind === 'ok') {
        form.setFieldsValue(Object.fromEntries(Object.entries(alarmValuesFrom(outcome.values))
          .filter(([name]) => !form.isFieldTouched(name))));
      }
      setRead({ deviceId, state: outcome.kind });
    });
    return () => controller.abort();
  }, [carId, deviceId, form]);
  const state: ReadState = read.deviceId === deviceId ? read.state : 'reading';

  return (
    <>
      <DeviceSelect devices={devices} />
      {state === 'reading' && <Alert type="info" showIcon icon={<Spin size="small" />} title={t('alarm.reading')} data-testid="alarm-reading" />}
      {state === 'unanswered' && <Alert type="warning" showIcon title={t('alarm.unanswered')} data-testid="alarm-unanswered" />}
      {state === 'ok' && <Alert type="success" showIcon title={t('alarm.read')} data-testid="alarm-read" />}
      <Tabs
        tabPlacement="start"
        activeKey={activeTab}
        onChange={onTab}
        style={{ marginTop: 12 }}
        items={ALARM_TABS.map((tab) => ({
          key: String(tab.key),
          label: <span data-testid={`alarm-tab-${tab.key}`}>{t(`alarm.tabs.${tab.name}`)}</span>,
          forceRender: true,
          children: tab.fields.map((field) => <FieldInput key={field.name} field={field} />),
        }))}
      />
    </>
  );
}
