import { TreeSelect } from 'antd';
import { useMemo } from 'react';
import { enterpriseOptions, useEnterpriseTree } from '../org/enterprises';

interface Props {
  testId: string;
  // Injected by antd Form.Item:
  value?: unknown;
  onChange?: (value: unknown) => void;
}

/** The enterprise a new record belongs to: one of the caller's subtree (the server checks it again,
 * api/query/records.py: outside the subtree is a 404 naming the enterprise). */
export default function EnterpriseSelect({ testId, value, onChange }: Props) {
  const nodes = useEnterpriseTree();
  const options = useMemo(() => enterpriseOptions(nodes), [nodes]);
  // Until the tree has loaded the field cannot name the enterprise: it shows that it is loading, never the
  // bare id (the form keeps the value; it is shown by name once the tree is there).
  const loading = options.length === 0;
  return (
    <TreeSelect<number> data-testid={testId} showSearch treeNodeFilterProp="title" treeDefaultExpandAll
      style={{ width: '100%' }} treeData={options} loading={loading} disabled={loading}
      value={!loading && typeof value === 'number' ? value : undefined}
      onChange={(id) => onChange?.(id ?? null)} />
  );
}
