import { Card, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListScreen } from '../../features/list/types';

export const ENTITY = 'dictionary';

const NAMESPACE = 'settings:dictionary';
const COLUMNS = ['code', 'localName', 'content', 'system', 'remark', 'updateTime'];
const FORM = ['type', 'code', 'name', 'content', 'system', 'remark'];

/** Platform-spec §2 settings "dictionary": the system dictionary (id 98) and the gateway dictionary
 * (id 99) split by code prefix into device protocols, FTP servers, media and attachment gateways. */
const TABS: { key: string; screen: ListScreen; prefix?: string }[] = [
  { key: 'system', screen: defineListScreen({ entity: ENTITY, namespace: NAMESPACE, columns: COLUMNS, form: FORM, query: { 'type.eq': 98 } }) },
  ...(['protocol', 'ftp', 'media', 'attachment'] as const).map((key) => ({
    key,
    prefix: `${key}.`,
    screen: defineListScreen({ entity: ENTITY, namespace: NAMESPACE, columns: COLUMNS, form: FORM, query: { 'type.eq': 99, 'code.rlike': `${key}.` } }),
  })),
];

export default function DictionaryScreen() {
  const { t } = useTranslation('settings');
  return (
    <Card title={t('dictionary.title')} data-testid="dictionary-screen">
      <Tabs
        destroyOnHidden
        items={TABS.map(({ key, screen, prefix }) => ({
          key,
          label: <span data-testid={`dictionary-tab-${key}`}>{t(`dictionary.tabs.${key}`)}</span>,
          children: (
            <>
              {prefix && <p className="dictionary-hint">{t('dictionary.codeHint', { prefix })}</p>}
              <ListPage screen={screen} />
            </>
          ),
        }))}
      />
    </Card>
  );
}
