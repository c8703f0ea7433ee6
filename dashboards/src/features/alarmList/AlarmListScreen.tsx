import { App, type ButtonProps } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { ignoreAlarm, type Alarm } from '../alarm/api';
import HandleAlarmDialog from '../alarm/HandleAlarmDialog';
import ListPage from '../list/ListPage';
import { defineListScreen, type ListRecord } from '../list/types';
import { alarmId, detailHref, isUnhandled, trackHref } from './model';

export type AlarmListEntity = 'alarm' | 'myAlarm' | 'safetyAlarm';

const DETAIL_ROUTE = { alarm: 'alarmDetail', myAlarm: 'alarmDetail', safetyAlarm: 'safetyAlarmDetail' } as const;

interface Props {
  entity: AlarmListEntity;
  /** A fixed condition of the list (the traffic-control alarms: `key.eq p_night`), on every query and export. */
  query?: Record<string, unknown>;
  /** The exported file's name (default: the entity). */
  name?: string;
}

/**
 * The alarm lists (platform-spec §2 alarm, myAlarm, safetyAlarm, trafficControlAlarm): newest first, filters
 * vehicle, type, level, state and start time; export; per row handle (the one handling dialog,
 * features/alarm/HandleAlarmDialog) and ignore while unhandled, detail, and the alarm on its track.
 */
export default function AlarmListScreen({ entity, query, name }: Props) {
  const { t } = useTranslation('alarmList');
  const { modal, message } = App.useApp();
  const access = useAccess();
  const canHandle = access.can('alarm', 'update');
  const [handling, setHandling] = useState<{ record: ListRecord; reload: () => void } | null>(null);

  const screen = useMemo(() => {
    const ignore = (record: ListRecord, reload: () => void) => {
      modal.confirm({
        title: t('ignore.confirm', { plate: String(record.plateNumber ?? '') }),
        okButtonProps: { 'data-testid': 'alarm-ignore-ok' } as ButtonProps,
        onOk: async () => {
          const reply = await ignoreAlarm(alarmId(record));
          if (reply.code === 0) void message.success(t('ignore.done'));
          reload();
        },
      });
    };
    return defineListScreen({
      entity,
      namespace: 'alarmList',
      permission: 'alarm',
      columns: [
        'plateNumber',
        { field: 'desc', render: (value, record) => String(value ?? record.key ?? '') },
        'type',
        { field: 'level', render: (value) => (value === null || value === undefined ? '' : t(`enums.level.${String(value)}`, { defaultValue: String(value) })) },
        'startTime', 'endTime', 'speed', 'driverName', 'address', 'state', 'opinion', 'confirmName', 'confirmTime',
      ],
      filters: ['plateNumber', 'type', 'level', 'state', 'startTime'],
      // "My alarms" are the caller's own enterprise's; the other lists are the subtree (the server's default).
      params: entity === 'myAlarm' ? { isParent: false } : undefined,
      features: { create: false, edit: false, delete: false, import: false },
      query,
      exportName: name,
      detail: (record) => detailHref(DETAIL_ROUTE[entity], record),
      rowActions: [
        ...(canHandle ? [
          { key: 'handle', label: t('actions.handle'), visible: isUnhandled,
            onClick: (record: ListRecord, { reload }: { reload: () => void }) => setHandling({ record, reload }) },
          { key: 'ignore', label: t('actions.ignore'), visible: isUnhandled,
            onClick: (record: ListRecord, { reload }: { reload: () => void }) => ignore(record, reload) },
        ] : []),
        { key: 'track', label: t('actions.track'), visible: (record) => trackHref(record) !== null, href: (record) => trackHref(record) ?? '' },
      ],
    });
  }, [entity, query, name, t, canHandle, modal, message]);

  return (
    <>
      <ListPage screen={screen} />
      <HandleAlarmDialog
        alarm={(handling?.record ?? null) as Pick<Alarm, 'id' | '_id' | 'plateNumber'> | null}
        open={handling !== null}
        onClose={() => setHandling(null)}
        onDone={() => { handling?.reload(); setHandling(null); }}
      />
    </>
  );
}
