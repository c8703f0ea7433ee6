import { Checkbox, Table, type TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import type { CatalogueEntry } from './api';
import { grantable, KNOWN_ACTIONS, type Matrix } from './grants';
import RightOpens from './RightOpens';

interface Props {
  catalogue: CatalogueEntry[];
  held: Matrix;
  value: Matrix;
  onChange?: (next: Matrix) => void;
}

/**
 * Permission codes x actions, each code with what it opens (screens, and the reads they bring); a box the
 * administrator cannot grant is disabled (read-only without onChange).
 */
export default function PermissionMatrix({ catalogue, held, value, onChange }: Props) {
  const { t } = useTranslation('org');
  const toggle = (code: string, action: string, on: boolean) => {
    const current = new Set(value[code] ?? []);
    if (on) current.add(action);
    else current.delete(action);
    onChange?.({ ...value, [code]: [...current] });
  };
  const columns: TableColumnsType<CatalogueEntry> = [
    { key: 'name', title: t('permission.fields.name'), render: (_: unknown, entry) => `${entry.name} (${entry.code})`, fixed: 'left' },
    { key: 'opens', title: t('permission.fields.opens'), render: (_: unknown, entry) => <RightOpens entry={entry} catalogue={catalogue} /> },
    ...KNOWN_ACTIONS.filter((action) => catalogue.some((entry) => entry.actions.includes(action))).map((action) => ({
      key: action,
      title: t(`actions.${action}`),
      align: 'center' as const,
      render: (_: unknown, entry: CatalogueEntry) => entry.actions.includes(action) ? (
        <Checkbox checked={(value[entry.code] ?? []).includes(action)} disabled={!onChange || !grantable(entry, action, held)}
          onChange={(e) => toggle(entry.code, action, e.target.checked)} data-testid={`grant-${entry.code}-${action}`} />
      ) : null,
    })),
  ];
  return <Table<CatalogueEntry> rowKey="code" size="small" pagination={false} scroll={{ x: 'max-content' }}
    columns={columns} dataSource={catalogue} data-testid="permission-matrix" />;
}
