import { LockOutlined, UnlockOutlined } from '@ant-design/icons';
import { App, Button, Card, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { sendCommand } from './api';

/**
 * Vehicle control 0x8500 (console-spec §7 send-command service: lock and unlock flags) on the vehicle detail
 * page: lock or unlock the doors of the shown device, each after a confirmation naming the plate. The server
 * holds it to the command and sensitive-command permissions and to `confirm: true`; the terminal's 0x0500
 * answer arrives as push 11 like every command's. Shown to a user holding both permissions, for a JT/T 808
 * terminal (the GB protocols have no door control).
 */
export function VehicleControlCard({ carId, deviceId, plate }: { carId: number; deviceId: number; plate: string }) {
  const { t } = useTranslation('command');
  const { modal, message } = App.useApp();
  const [sending, setSending] = useState<'lock' | 'unlock' | null>(null);

  const ask = (lock: boolean) => {
    modal.confirm({
      title: t(lock ? 'vehicleControl.confirmLock' : 'vehicleControl.confirmUnlock', { plate }),
      content: t('vehicleControl.warning'),
      okText: t('vehicleControl.ok'),
      cancelText: t('form.cancel'),
      okButtonProps: { 'data-testid': 'vehicle-control-confirm' } as Record<string, string>,
      onOk: async () => {
        setSending(lock ? 'lock' : 'unlock');
        try {
          const reply = await sendCommand({ carId, deviceId }, '8500', { lock: lock ? 1 : 0, confirm: true });
          if (reply.code === 0) void message.success({ content: <span data-testid="command-accepted">{reply.message}</span> });
        } finally {
          setSending(null);
        }
      },
    });
  };

  return (
    <Card size="small" title={t('vehicleControl.title')} data-testid="vehicle-control">
      <Space wrap>
        <Button icon={<LockOutlined />} loading={sending === 'lock'} onClick={() => ask(true)} data-testid="vehicle-control-lock">
          {t('vehicleControl.lock')}
        </Button>
        <Button icon={<UnlockOutlined />} loading={sending === 'unlock'} onClick={() => ask(false)} data-testid="vehicle-control-unlock">
          {t('vehicleControl.unlock')}
        </Button>
        <Typography.Text type="secondary">{t('vehicleControl.warning')}</Typography.Text>
      </Space>
    </Card>
  );
}
