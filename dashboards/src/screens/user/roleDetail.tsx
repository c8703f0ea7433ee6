import { App, Button, Card, Descriptions, Result, Space, Spin } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useAccess } from '../../auth/access';
import { useSession } from '../../auth/useSession';
import { fetchCatalogue, fetchRecord, patchRecord, type CatalogueEntry, type Grant } from '../../features/org/api';
import { toGrants, toMatrix, type Matrix } from '../../features/org/grants';
import PermissionMatrix from '../../features/org/PermissionMatrix';

interface Role {
  id: number;
  name: string;
  code: string | null;
  description: string | null;
  permissions: Grant[];
}

/** Platform-spec §2 role detail: the role and its permission matrix (only what the administrator holds can be granted). */
export default function RoleDetailScreen() {
  const { t, i18n } = useTranslation('org');
  const { message, notification } = App.useApp();
  const [params] = useSearchParams();
  const id = params.get('id');
  const { user } = useSession();
  const access = useAccess();
  const held = useMemo(() => toMatrix(user?.permissions ?? []), [user]);
  const [role, setRole] = useState<Role | null>(null);
  const [missing, setMissing] = useState(false);
  const [catalogue, setCatalogue] = useState<CatalogueEntry[]>([]);
  const [matrix, setMatrix] = useState<Matrix>({});
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!id) return undefined;
    const controller = new AbortController();
    void fetchRecord<Role>('role', id, controller.signal).then((reply) => {
      if (controller.signal.aborted) return;
      if (reply.code === 0 && reply.data) {
        setRole(reply.data);
        setMatrix(toMatrix(reply.data.permissions));
      } else setMissing(true);
    });
    return () => controller.abort();
  }, [id]);

  // The permission names are server texts in the console's language: read again when it changes.
  useEffect(() => {
    const controller = new AbortController();
    void fetchCatalogue(controller.signal).then((reply) => {
      if (reply.code === 0 && reply.data) setCatalogue(reply.data);
    });
    return () => controller.abort();
  }, [i18n.language]);

  if (!id || missing) return <Result status="404" title={t('role.missing')} />;
  if (!role) return <Spin style={{ display: 'block', margin: 48 }} />;
  const editable = access.can('role', 'update');
  const save = async () => {
    setSaving(true);
    const reply = await patchRecord<Role>('role', role.id, { permissions: toGrants(matrix) });
    setSaving(false);
    if (reply.code === 0 && reply.data) {
      setRole(reply.data);
      setMatrix(toMatrix(reply.data.permissions));
      void message.success(t('done.permissions'));
    } else notification.error({ title: t('common:request.errorTitle'), description: reply.message });
  };
  return (
    <Card data-testid="role-detail" title={role.name}
      extra={editable ? (
        <Space>
          <Button onClick={() => setMatrix(toMatrix(role.permissions))}>{t('role.revert')}</Button>
          <Button type="primary" loading={saving} onClick={() => void save()} data-testid="role-save">{t('role.save')}</Button>
        </Space>
      ) : null}>
      <Descriptions size="small" column={3} style={{ marginBottom: 16 }} items={[
        { key: 'name', label: t('role.fields.name'), children: role.name },
        { key: 'code', label: t('role.fields.code'), children: role.code ?? '' },
        { key: 'description', label: t('role.fields.description'), children: role.description ?? '' },
      ]} />
      <PermissionMatrix catalogue={catalogue} held={held} value={matrix} onChange={editable ? setMatrix : undefined} />
    </Card>
  );
}
