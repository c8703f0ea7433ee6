import { Card, Table, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchCatalogue, type CatalogueEntry } from '../../features/org/api';

/** Platform-spec §2 "permission": the catalogue of permission codes and the actions each offers (read-only). */
export default function PermissionScreen() {
  const { t, i18n } = useTranslation('org');
  const [rows, setRows] = useState<CatalogueEntry[] | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void fetchCatalogue(controller.signal).then((reply) => {
      if (!controller.signal.aborted) setRows(reply.code === 0 ? (reply.data ?? []) : []);
    });
    return () => controller.abort();
  }, [i18n.language]); // the names are server texts in the console's language
  return (
    <Card data-testid="permission-screen">
      <Table<CatalogueEntry> rowKey="code" loading={rows === null} dataSource={rows ?? []} pagination={false} size="small"
        columns={[
          { key: 'code', dataIndex: 'code', title: t('permission.fields.code') },
          { key: 'name', dataIndex: 'name', title: t('permission.fields.name') },
          { key: 'actions', dataIndex: 'actions', title: t('permission.fields.actions'),
            render: (actions: string[]) => actions.map((a) => <Tag key={a}>{t(`actions.${a}`)}</Tag>) },
        ]} />
    </Card>
  );
}
