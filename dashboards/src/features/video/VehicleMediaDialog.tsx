/**
 * The vehicle popup's live video, listen and intercom dialogs (console-spec §2 "downstream command
 * dialogs"): 查看【plate】实时视频 plays every channel of the car's video device in turn in a
 * 4-window grid (the spec's multiple=true); 对【plate】进行语音监听 listens (data type 3) to one
 * channel; 与【plate】进行通话 is the talk dialog. Devices without the ability: "该车辆没有安装具备该功能的
 * 设备"; a device selector when the car has several. Closing stops what the dialog started.
 * Test ids: `video-dialog-<mode>`, `listen-channel`, `listen-start`.
 */
import { Button, Form, Modal, Result, Select, Space, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { videoChannels, type CarDevice } from '../command/api';
import { DeviceSelect } from '../command/dialogs/DeviceSelect';
import { defaultDevice, useCarDevices } from '../command/useCarDevices';
import type { CarRow } from '../map/model/types';
import { useLiveHub } from '../../live/useLiveHub';
import { isVehicleOnline, stateOfDevice } from '../../live/vehicleStates';
import { talkChannelOf } from './channelTree';
import { DATA_TYPE } from './constants';
import { entryOf } from './entries';
import { TalkDialog } from './TalkDialog';
import { useVideoGrid } from './useVideoGrid';
import { VideoGrid } from './VideoGrid';

export type MediaMode = 'video' | 'listen' | 'intercom';

const ABILITY = { video: 'hasVideo', listen: undefined, intercom: 'hasMicrophone' } as const;

function MediaGrid({ car, device, mode }: { car: CarRow; device: CarDevice; mode: 'video' | 'listen' }) {
  const { t } = useTranslation('video');
  const hub = useLiveHub();
  const grid = useVideoGrid(mode === 'video' ? 4 : 1, mode === 'listen');
  const channels = videoChannels(device);
  const [listenChannel, setListenChannel] = useState(talkChannelOf(device as { talkChannel: string | null; videoChannel: string | null }));
  const started = useRef(false);
  const online = (deviceId: number) => {
    const state = hub?.states.get(deviceId);
    // Unknown to the store (a dialog opened outside the map): the server refuses an offline device anyway.
    return isVehicleOnline(state ?? (car.masterDeviceState === null ? { online: true, bizState: 1 } : stateOfDevice(car.masterDeviceState, car.masterDeviceBizState)));
  };
  const node = (channelId: number) => ({ carId: car.carId, deviceId: device.id, deviceSn: device.deviceSn, plateNumber: car.plateNumber, channelId });
  useEffect(() => {
    if (mode !== 'video' || started.current) return;
    started.current = true;
    void grid.open(channels.map((c) => entryOf(node(c))), online);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the dialog opens
  }, []);
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      {mode === 'listen' && (
        <Space>
          <span>{t('listen.channel')}</span>
          <Select size="small" value={listenChannel} onChange={setListenChannel} data-testid="listen-channel" style={{ width: 100 }}
            options={[...new Set([...channels, listenChannel])].map((c) => ({ value: c, label: t('tree.channel', { n: c }) }))} />
          <Button size="small" type="primary" data-testid="listen-start"
            onClick={() => void grid.closeWhere(() => true).then(() => grid.open([entryOf(node(listenChannel), DATA_TYPE.listen)], online))}>
            {t('listen.start')}
          </Button>
        </Space>
      )}
      <VideoGrid grid={grid} height={mode === 'video' ? 480 : 160} toolbar={mode === 'video'} />
    </Space>
  );
}

export function VehicleMediaDialog({ mode, car, onClose }: { mode: MediaMode; car: CarRow; onClose: () => void }) {
  const { t } = useTranslation('map');
  const { t: tv } = useTranslation('video');
  const [form] = Form.useForm();
  const devices = useCarDevices(car.carId, ABILITY[mode]);
  const [deviceId, setDeviceId] = useState<number | undefined>();
  const device = devices ? devices.find((d) => d.id === deviceId) ?? defaultDevice(devices, car.masterDeviceId) : undefined;

  if (mode === 'intercom' && device) {
    return (
      <TalkDialog target={{ carId: car.carId, deviceId: device.id, deviceSn: device.deviceSn, phone: device.phone, plateNumber: car.plateNumber }}
        talkChannel={device.talkChannel ?? null} videoChannel={device.videoChannel} onClose={onClose} />
    );
  }
  let body;
  if (devices === null) body = <Spin />;
  else if (!device) body = <Result status="info" title={tv('vehicle.noDevice')} data-testid="command-no-device" />;
  else body = <MediaGrid key={device.id} car={car} device={device} mode={mode === 'listen' ? 'listen' : 'video'} />;
  return (
    <Modal open title={t(`dialogs.${mode}`, { plate: car.plateNumber })} onCancel={onClose} footer={null} width={mode === 'video' ? 900 : 560} destroyOnHidden>
      <div data-testid={`video-dialog-${mode}`}>
        {devices && devices.length > 1 && (
          <Form form={form} layout="inline" initialValues={{ deviceId: device?.id }} onValuesChange={(v) => setDeviceId(v.deviceId)}>
            <DeviceSelect devices={devices} />
          </Form>
        )}
        {body}
      </div>
    </Modal>
  );
}
