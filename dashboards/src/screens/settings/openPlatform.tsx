import { Card, Table, Tabs, Tag } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { updateRecord } from '../../features/list/api';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord } from '../../features/list/types';
import { fetchApiGroups, issueNewSecret, type ApiGroup } from '../../features/platform/api';
import SecretModal, { type ShownSecret } from '../../features/platform/SecretModal';

export const ENTITY = 'openApp';

const NAMESPACE = 'settings:openPlatform';

function useApiGroups(): ApiGroup[] {
  const [groups, setGroups] = useState<ApiGroup[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    void fetchApiGroups(controller.signal).then((reply) => {
      if (!controller.signal.aborted && reply.code === 0 && reply.data) setGroups(reply.data);
    });
    return () => controller.abort();
  }, []);
  return groups;
}

/** The API groups an app may be allowed: the permission codes (read actions) and main routes of each. */
function ApiCatalogue({ groups }: { groups: ApiGroup[] }) {
  const { t, i18n } = useTranslation('settings');
  return (
    <Table<ApiGroup> size="small" rowKey="name" dataSource={groups} pagination={false} data-testid="open-platform-apis" columns={[
      { key: 'name', dataIndex: 'name', title: t('openPlatform.group'), render: (name: string, group) => <span><code>{name}</code> {i18n.language.startsWith('en') ? group.labelEn : group.label}</span> },
      { key: 'permissions', dataIndex: 'permissions', title: t('openPlatform.permissions'), render: (perms: ApiGroup['permissions']) => perms.map((p) => <Tag key={p.code}>{p.code}: {p.actions.join(', ')}</Tag>) },
      { key: 'routes', dataIndex: 'routes', title: t('openPlatform.routes'), render: (routes: string[]) => <div>{routes.map((r) => <div key={r}><code>{r}</code></div>)}</div> },
    ]} />
  );
}

/** Settings "openPlatform" (platform-spec §2 "apps, APIs and limit configs"): integrators'
 * apps on the entity framework (key, secret shown once, state, allowed API groups, calls per minute),
 * and the catalogue of API groups. */
export default function OpenPlatformScreen() {
  const { t, i18n } = useTranslation('settings');
  const groups = useApiGroups();
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const screen = useMemo(() => {
    const groupLabel = (name: string) => {
      const group = groups.find((g) => g.name === name);
      return group ? (i18n.language.startsWith('en') ? group.labelEn : group.label) : name;
    };
    return defineListScreen({
      entity: ENTITY,
      namespace: NAMESPACE,
      columns: [
        'name', 'appKey',
        { field: 'state', render: (value) => (value === 1 ? <Tag color="green">{t('openPlatform.enums.state.1')}</Tag> : <Tag>{t('openPlatform.enums.state.0')}</Tag>) },
        { field: 'apis', render: (value) => String(value ?? '').split(',').filter(Boolean).map((name) => <Tag key={name}>{groupLabel(name)}</Tag>) },
        'rateLimitPerMin', 'lastTokenTime', 'createTime',
      ],
      filters: ['name', 'appKey', 'state'],
      form: ['name', 'state', 'apis', 'rateLimitPerMin', 'remark'],
      createDefaults: { state: 1 },
      onCreated: (record: ListRecord) => setSecret({ appKey: String(record.appKey), appSecret: String(record.appSecret) }),
      rowActions: [
        { key: 'toggle', action: 'update', label: t('openPlatform.toggle'), onClick: (record, { reload }) => {
          void updateRecord('openApp', record.id, { state: record.state === 1 ? 0 : 1 }).then(reload);
        } },
        { key: 'secret', action: 'update', label: t('openPlatform.newSecret'), onClick: (record, { reload }) => {
          void issueNewSecret(record.id).then((reply) => {
            if (reply.code === 0 && reply.data) setSecret({ appKey: reply.data.appKey, appSecret: reply.data.appSecret });
            reload();
          });
        } },
      ],
      features: { import: false, export: false },
    });
  }, [groups, i18n.language, t]);

  return (
    <Card title={t('openPlatform.title')} data-testid="open-platform-screen">
      <Tabs destroyOnHidden items={[
        { key: 'apps', label: <span data-testid="open-platform-tab-apps">{t('openPlatform.apps')}</span>, children: <ListPage screen={screen} /> },
        { key: 'apis', label: <span data-testid="open-platform-tab-apis">{t('openPlatform.apis')}</span>, children: (
          <>
            <p>{t('openPlatform.limitHint')}</p>
            <ApiCatalogue groups={groups} />
          </>
        ) },
      ]} />
      <SecretModal secret={secret} onClose={() => setSecret(null)} />
    </Card>
  );
}
