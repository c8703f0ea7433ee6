import { Checkbox, DatePicker, Select, Space, TreeSelect } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EnterpriseNode } from '../org/api';
import { enterpriseOptions, useEnterpriseTree } from '../org/enterprises';
import { refOptions, type RefOption } from './api';
import { dayPresets, subtreeIds } from './filterKinds';
import type { EnterpriseChoice } from './model';
import type { FieldMeta, FilterKind } from './types';

interface Props {
  field: FieldMeta;
  kind: FilterKind;
  testId: string;
  // Injected by antd Form.Item:
  value?: unknown;
  onChange?: (value: unknown) => void;
}

function findNode(nodes: EnterpriseNode[], id: number): EnterpriseNode | null {
  for (const node of nodes) {
    if (node.id === id) return node;
    const found = findNode(node.children ?? [], id);
    if (found) return found;
  }
  return null;
}

/** An enterprise of the caller's tree and whether its subsidiaries count too (platform-spec §6 isParent). */
function EnterpriseFilter({ testId, value, onChange }: Omit<Props, 'field' | 'kind'>) {
  const { t } = useTranslation('list');
  const nodes = useEnterpriseTree();
  const options = useMemo(() => enterpriseOptions(nodes), [nodes]);
  const choice = value as EnterpriseChoice | undefined;
  const choose = (id: number | undefined, subtree: boolean) => {
    const node = id === undefined ? null : findNode(nodes, id);
    onChange?.(node ? { id: node.id, subtree, ids: subtree ? subtreeIds(node) : [node.id] } : null);
  };
  return (
    <Space size={8} style={{ whiteSpace: 'nowrap' }}>
      <TreeSelect<number> data-testid={testId} allowClear showSearch treeNodeFilterProp="title" treeDefaultExpandAll
        style={{ width: 200 }} treeData={options} value={choice?.id}
        onChange={(id) => choose(id ?? undefined, choice?.subtree ?? true)} placeholder={t('allEnterprises')} />
      <Checkbox checked={choice?.subtree ?? true} disabled={!choice}
        data-testid={`${testId}-subtree`} onChange={(e) => choose(choice?.id, e.target.checked)}>
        {t('withSubsidiaries')}
      </Checkbox>
    </Space>
  );
}

/** A record of another entity in the caller's whole tree (a subsidiary's vehicle too), chosen by name. */
function RefFilter({ entity, testId, value, onChange }: { entity: string } & Omit<Props, 'field' | 'kind'>) {
  const [options, setOptions] = useState<RefOption[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    void refOptions(entity, controller.signal).then((found) => {
      if (!controller.signal.aborted) setOptions(found);
    });
    return () => controller.abort();
  }, [entity]);
  return (
    <Select data-testid={testId} allowClear showSearch={{ optionFilterProp: 'label' }} options={options} style={{ minWidth: 160 }}
      value={value as RefOption['value'] | undefined} onChange={(v) => onChange?.(v ?? null)} />
  );
}

/** The widget of a filter with a kind (types.ts FilterKind). */
export default function KindInput({ kind, testId, value, onChange }: Props) {
  const { t } = useTranslation('list');
  switch (kind.kind) {
    case 'dayRange':
      return (
        <DatePicker.RangePicker data-testid={testId} value={value as never} onChange={(v) => onChange?.(v)}
          presets={dayPresets().map((p) => ({ label: t(`presets.${p.key}`), value: p.value }))} />
      );
    case 'monthRange':
      return <DatePicker.RangePicker data-testid={testId} picker="month" value={value as never} onChange={(v) => onChange?.(v)} />;
    case 'enterprise':
      return <EnterpriseFilter testId={testId} value={value} onChange={onChange} />;
    case 'positive':
    case 'choice':
      return (
        <Select data-testid={testId} allowClear showSearch={{ optionFilterProp: 'label' }} options={kind.options}
          value={value as string | number | undefined} onChange={(v) => onChange?.(v ?? null)} style={{ minWidth: 160 }} />
      );
    case 'ref':
      return <RefFilter entity={kind.entity} testId={testId} value={value} onChange={onChange} />;
    default:
      return null;
  }
}
