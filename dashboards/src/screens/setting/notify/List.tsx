import { Badge, Button, Card, Segmented, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../features/map/popup/format';
import { BIZ_ALARM, BIZ_TYPES, isAnnouncement, queryNotices, type Notice } from '../../../features/notices/api';
import { useOpenNotice } from '../../../features/notices/useOpenNotice';

const PAGE_SIZE = 20;
const TAG_COLOURS: Record<number, string> = { 1: 'purple', 2: 'orange', 3: 'gold', 4: 'cyan', 5: 'blue', 6: 'red' };

/**
 * `/setting/notify/List` (console-spec §2), opened from the notice bell: the caller's open notices of every
 * kind it may read (POST /api/query/notice.json, api/notices.py), newest first, narrowed to one bizType by the
 * switch; a notice opens where it is handled (an announcement: its text, then it is read).
 */
export default function NotifyListPage() {
  const { t } = useTranslation('alarm');
  const [page, setPage] = useState(1);
  const [bizType, setBizType] = useState(0);
  const [rows, setRows] = useState<Notice[]>([]);
  const [total, setTotal] = useState(0);
  const [loaded, setLoaded] = useState('');
  const [version, setVersion] = useState(0);
  const open = useOpenNotice(() => setVersion((v) => v + 1));
  const key = `${bizType}-${page}-${version}`;

  useEffect(() => {
    const controller = new AbortController();
    void queryNotices(page, PAGE_SIZE, bizType || undefined, controller.signal).then((reply) => {
      if (controller.signal.aborted) return;
      setLoaded(key);
      if (!reply) return;
      setRows(reply.list ?? []);
      setTotal(Number(reply.total ?? reply.list?.length ?? 0));
    });
    return () => controller.abort();
  }, [page, bizType, key]);

  const columns: ColumnsType<Notice> = [
    {
      title: t('notice.columns.bizType'),
      dataIndex: 'bizType',
      width: 140,
      render: (value: number) => <Tag color={TAG_COLOURS[value]}>{t(`notice.bizType.${value}`, { defaultValue: String(value) })}</Tag>,
    },
    {
      title: t('notice.columns.title'),
      dataIndex: 'title',
      render: (title: string, row) => (
        <Button type="link" size="small" style={{ padding: 0 }} data-testid={`notice-open-${row.bizType}-${row.id}`} onClick={() => open(row)}>
          {isAnnouncement(row) && !row.read ? <Badge status="processing" /> : null} {title}
        </Button>
      ),
    },
    {
      title: t('notice.columns.content'),
      dataIndex: 'content',
      ellipsis: true,
      render: (content: string | null, row) => (row.daysLeft != null
        ? `${content ?? ''} ${row.daysLeft < 0 ? t('notice.overdue', { days: -row.daysLeft }) : t('notice.daysLeft', { days: row.daysLeft })}`.trim()
        : content || '-'),
    },
    { title: t('notice.columns.time'), dataIndex: 'createTime', width: 180, render: (time: number | string | null) => formatTime(time) },
  ];

  return (
    <Card title={t('notice.title')} data-testid="notify-list">
      <Segmented<number>
        data-testid="notice-kinds"
        style={{ marginBottom: 12 }}
        value={bizType}
        onChange={(value) => { setBizType(value); setPage(1); }}
        options={[{ value: 0, label: t('notice.all') }, ...BIZ_TYPES.map((value) => ({ value, label: t(`notice.bizType.${value}`) }))]}
      />
      <Table<Notice>
        rowKey={(row) => `${row.bizType}-${String(row.id)}`}
        size="small"
        loading={loaded !== key}
        columns={columns}
        dataSource={rows}
        rowClassName={(row) => (row.bizType === BIZ_ALARM ? 'notice-alarm' : '')}
        locale={{ emptyText: t('notice.empty') }}
        pagination={{ current: page, pageSize: PAGE_SIZE, total, showSizeChanger: false, onChange: setPage }}
      />
    </Card>
  );
}
