/**
 * The newest unhandled alarms of the caller's tree (the alarm list's `state.eq` 0, newest first), re-read whenever
 * the board re-reads (a new alarm's push, a handling, the minute timer); each opens its alarm detail, the title the
 * alarm list.
 */
import { Card, Table, Tag } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { alarmId, queryAlarms, STATE_UNHANDLED, type Alarm } from '../../alarm/api';

export const LATEST_SIZE = 10;

export default function LatestUnhandled({ version }: { version: number }) {
  const { t } = useTranslation('dashboard');
  const [alarms, setAlarms] = useState<Alarm[] | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void queryAlarms({ 'state.eq': STATE_UNHANDLED }, { pageSize: LATEST_SIZE, signal: controller.signal }).then((page) => {
      if (!controller.signal.aborted) setAlarms(page?.list ?? []);
    });
    return () => controller.abort();
  }, [version]);
  return (
    <Card title={t('alarmBoard.latest')} extra={<Link to="/list/alarm" data-testid="alarm-board-list-link">{t('alarmBoard.allAlarms')}</Link>}
      style={{ marginTop: 16 }} data-testid="alarm-board-latest">
      <Table<Alarm>
        size="small"
        rowKey={(alarm) => alarmId(alarm)}
        loading={alarms === null}
        dataSource={alarms ?? []}
        pagination={false}
        columns={[
          { key: 'plate', title: t('alarmBoard.plate'), render: (_, alarm) => alarm.plateNumber ?? '' },
          { key: 'desc', title: t('alarmBoard.alarm'), render: (_, alarm) => (
            <Link to={`/list/alarmDetail?id=${encodeURIComponent(alarmId(alarm))}`} data-testid={`latest-alarm-${alarmId(alarm)}`}>
              {alarm.desc ?? alarm.key ?? ''}
            </Link>
          ) },
          { key: 'level', title: t('alarmBoard.level'), render: (_, alarm) => (alarm.level ? <Tag color="red">{t(`alarmBoard.levels.${alarm.level}`, { defaultValue: String(alarm.level) })}</Tag> : null) },
          { key: 'time', title: t('alarmBoard.time'), render: (_, alarm) => (alarm.startTime ? dayjs(alarm.startTime).format('MM-DD HH:mm:ss') : '') },
        ]}
      />
    </Card>
  );
}
