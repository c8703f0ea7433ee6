import { Form, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { videoChannels, type CarDevice } from '../api';
import { DeviceSelect } from './DeviceSelect';
import type { DialogBodyProps } from './types';

/** 对【plate】进行抓拍: the channel (the device's video channels) and the target device. */
export function PhotoDialogBody({ devices, form, defaultDeviceId }: DialogBodyProps) {
  const { t } = useTranslation('command');
  const deviceId = (Form.useWatch('deviceId', form) as number | undefined) ?? defaultDeviceId;
  const device: CarDevice | undefined = devices.find((d) => d.id === deviceId) ?? devices[0];
  return (
    <>
      <DeviceSelect devices={devices} />
      <Form.Item name="channelId" label={t('photo.channel')} initialValue={1}>
        <Select
          data-testid="photo-channel"
          options={videoChannels(device).map((channel) => ({ value: channel, label: t('photo.channelN', { channel }) }))}
        />
      </Form.Item>
    </>
  );
}
