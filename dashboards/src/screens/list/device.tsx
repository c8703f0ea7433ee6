import { App } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { setDeviceState } from '../../features/fleet/api';
import { channelNames } from '../../features/fleet/carDevices';
import { prefillFromSearch } from '../../features/fleet/registerPrefill';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord, type RowActionContext } from '../../features/list/types';

export const ENTITY = 'device';

const DISABLED = 5;

/**
 * Platform-spec §2 list "device": terminals (JT/T 808 phone, serial, protocol, channels, abilities).
 * The state (platform-spec §4) belongs to the gateway; an administrator only disables / enables.
 * `?register=<phone>&terminalId=&protocolVersion=` (the refused terminals' register link) opens the create form filled in.
 */
export default function DeviceList() {
  const { t } = useTranslation('fleet');
  const { notification } = App.useApp();
  const [search] = useSearchParams();
  const prefill = useMemo(() => prefillFromSearch(search), [search]);
  const screen = useMemo(() => {
    const toggle = (action: 'enable' | 'disable') => async (record: ListRecord, context: RowActionContext) => {
      const reply = await setDeviceState(record.id, action);
      if (reply.code === 0) notification.success({ title: t(`done.${action}`) });
      context.reload();
    };
    const channels = (value: unknown) => channelNames(t, value);
    return defineListScreen({
      entity: ENTITY,
      namespace: 'fleet:device',
      columns: ['phone', 'deviceSn', 'deviceName', 'protocolVersion', { field: 'videoChannel', render: channels },
        { field: 'talkChannel', render: channels }, 'hasVideo', 'state', 'onlineTime'],
      filters: ['phone', 'deviceSn', 'deviceName', 'state'],
      form: ['phone', 'deviceSn', 'deviceName', 'protocol', 'protocolVersion', 'videoProtocolVersion', 'videoChannel',
        'talkChannel', 'hasVideo', 'hasPhoto', 'hasMicrophone', 'deviceProducerId', 'deviceTypeId',
        // recorded before the first registration: the gateway refuses any other terminal id / IMEI
        'expectedTerminalId', 'expectedImei'],
      openCreate: prefill,
      rowActions: [
        { key: 'disable', action: 'disable', label: t('action.disable'), onClick: (r, c) => {
          if (r.state !== DISABLED) void toggle('disable')(r, c);
        } },
        { key: 'enable', action: 'enable', label: t('action.enable'), onClick: (r, c) => {
          if (r.state === DISABLED) void toggle('enable')(r, c);
        } },
      ],
    });
  }, [t, notification, prefill]);
  return <ListPage screen={screen} />;
}
