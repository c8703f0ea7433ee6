import { Form, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import type { CarDevice } from '../api';

/** The target-device selector: shown only when the car has more than one (console-spec §2). */
export function DeviceSelect({ devices }: { devices: CarDevice[] }) {
  const { t } = useTranslation('command');
  if (devices.length <= 1) return null;
  return (
    <Form.Item name="deviceId" label={t('form.device')} rules={[{ required: true, message: t('form.deviceRequired') }]}>
      <Select
        data-testid="command-device"
        options={devices.map((d) => ({ value: d.id, label: `${d.deviceName || d.deviceSn} (${d.phone})` }))}
      />
    </Form.Item>
  );
}
