import { Form, Modal, Result, Spin } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CarRow } from '../map/model/types';
import { sendCommand, writeTerminalParams } from './api';
import { AlarmSettingBody } from './dialogs/AlarmSettingDialog';
import { PhotoDialogBody } from './dialogs/PhotoDialog';
import { TextDialogBody } from './dialogs/TextDialog';
import { alarmParamsOf, alarmTab, capturePayload, textPayload, type CommandAction } from './payloads';
import { useSend } from './dialogs/useSend';
import { defaultDevice, useCarDevices, type Ability } from './useCarDevices';

const ABILITY: Partial<Record<CommandAction, Ability>> = { photo: 'hasPhoto' };

/**
 * The downstream command dialogs of the map popup (console-spec §2), titled as the spec says, each
 * on the car's devices that can do it (none: "该车辆没有安装具备该功能的设备"), with a device selector
 * when there is more than one. Sending closes the dialog; the outcome arrives as push 11 / 12.
 */
export function CommandDialog({ action, car, onClose }: { action: CommandAction; car: CarRow; onClose: () => void }) {
  const { t } = useTranslation('map');
  const { t: tc } = useTranslation('command');
  const [form] = Form.useForm();
  const devices = useCarDevices(car.carId, ABILITY[action]);
  const { send, sending } = useSend(onClose);
  const [activeTab, setActiveTab] = useState('1');
  const initialDevice = devices ? defaultDevice(devices, car.masterDeviceId)?.id : undefined;

  const submit = async () => {
    if (!devices?.length) return;
    if (action === 'alarmSetting') {
      const tab = alarmTab(activeTab);
      const values = await form.validateFields(tab.fields.map((f) => f.name)).catch(() => null);
      if (!values) return;
      const deviceId = (form.getFieldValue('deviceId') as number | undefined) ?? initialDevice;
      if (deviceId === undefined) return;
      await send(() => writeTerminalParams({ carId: car.carId, deviceId }, alarmParamsOf(tab, values as Record<string, unknown>)));
      return;
    }
    const values = (await form.validateFields().catch(() => null)) as Record<string, unknown> | null;
    if (!values) return;
    const deviceId = (values.deviceId as number | undefined) ?? initialDevice;
    const target = { carId: car.carId, deviceId };
    if (action === 'photo') await send(() => sendCommand(target, '8801', capturePayload(Number(values.channelId ?? 1))));
    else await send(() => sendCommand(target, '8300', textPayload(values as { content: string }, action)));
  };

  let body;
  if (devices === null) body = <Spin data-testid="command-loading" />;
  else if (devices.length === 0) body = <Result status="info" title={tc('noDevice')} data-testid="command-no-device" />;
  else {
    const props = { devices, form, defaultDeviceId: initialDevice };
    body = (
      <Form form={form} layout="vertical" initialValues={{ deviceId: initialDevice }} preserve>
        {action === 'photo' && <PhotoDialogBody {...props} />}
        {(action === 'tts' || action === 'text') && <TextDialogBody {...props} mode={action} />}
        {action === 'alarmSetting' && <AlarmSettingBody {...props} carId={car.carId} activeTab={activeTab} onTab={setActiveTab} />}
      </Form>
    );
  }

  return (
    <Modal
      open
      title={t(`dialogs.${action}`, { plate: car.plateNumber })}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={tc('form.send')}
      cancelText={tc('form.cancel')}
      okButtonProps={{ disabled: !devices?.length, loading: sending, 'data-testid': 'command-send' }}
      width={action === 'alarmSetting' ? 680 : 520}
      destroyOnHidden
    >
      <div data-testid={`command-dialog-${action}`}>{body}</div>
    </Modal>
  );
}
