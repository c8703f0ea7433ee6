import { Card, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { queryNotices, type Notice } from '../../../features/alarm/api';
import { formatTime } from '../../../features/map/popup/format';

const PAGE_SIZE = 20;
const BIZ_ALARM = 6;

/**
 * `/setting/notify/List` (console-spec §2), opened from the notice bell: the notices of the caller's
 * scope (POST /api/query/notice.json), newest first; an alarm notice (bizType 6) links to its detail.
 */
export default function NotifyListPage() {
  const { t } = useTranslation('alarm');
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<Notice[]>([]);
  const [total, setTotal] = useState(0);
  const [loadedPage, setLoadedPage] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    void queryNotices(page, PAGE_SIZE, controller.signal).then((reply) => {
      if (controller.signal.aborted) return;
      setLoadedPage(page);
      if (!reply) return;
      setRows(reply.list ?? []);
      setTotal(Number(reply.total ?? reply.list?.length ?? 0));
    });
    return () => controller.abort();
  }, [page]);

  const columns: ColumnsType<Notice> = [
    {
      title: t('notice.columns.bizType'),
      dataIndex: 'bizType',
      width: 140,
      render: (bizType: number) => <Tag color={bizType === BIZ_ALARM ? 'red' : 'blue'}>{t(`notice.bizType.${bizType}`, { defaultValue: String(bizType) })}</Tag>,
    },
    {
      title: t('notice.columns.title'),
      dataIndex: 'title',
      render: (title: string, row) => (row.bizType === BIZ_ALARM && row.bizId != null
        ? <Link to={`/list/alarmDetail?id=${encodeURIComponent(String(row.bizId))}`}>{title}</Link>
        : title),
    },
    { title: t('notice.columns.content'), dataIndex: 'content', render: (content: string | null) => content || '-' },
    { title: t('notice.columns.time'), dataIndex: 'createTime', width: 180, render: (time: number | string | null) => formatTime(time) },
  ];

  return (
    <Card title={t('notice.title')} data-testid="notify-list">
      <Table<Notice>
        rowKey={(row) => `${row.bizType}-${String(row.id)}`}
        size="small"
        loading={loadedPage !== page}
        columns={columns}
        dataSource={rows}
        locale={{ emptyText: t('notice.empty') }}
        pagination={{ current: page, pageSize: PAGE_SIZE, total, showSizeChanger: false, onChange: setPage }}
      />
    </Card>
  );
}
