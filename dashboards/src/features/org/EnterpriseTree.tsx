import { ApartmentOutlined, BankOutlined, ClusterOutlined, ShopOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Tree, type TreeDataNode } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchSubsidiaries, type EnterpriseNode } from './api';

/** Platform-spec §3: enterprise types 1-4 have their own icons (3 is an enterprise). */
const TYPE_ICONS: Record<number, ReactNode> = {
  1: <BankOutlined />,
  2: <ClusterOutlined />,
  3: <ApartmentOutlined />,
  4: <ShopOutlined />,
};

function treeData(nodes: EnterpriseNode[], disabledText: string): TreeDataNode[] {
  return nodes.map((node) => ({
    key: node.id,
    title: node.state === 0 ? `${node.shortName} (${disabledText})` : node.shortName,
    icon: TYPE_ICONS[node.type] ?? TYPE_ICONS[3],
    children: treeData(node.children ?? [], disabledText),
  }));
}

interface Props {
  selected: number | undefined;
  onSelect: (id: number | undefined) => void;
  /** Bump to load the tree again (after a create, an enable or a disable). */
  version: number;
}

/** The caller's enterprise and its subsidiaries; selecting a node filters the screen beside it. */
export default function EnterpriseTree({ selected, onSelect, version }: Props) {
  const { t } = useTranslation('org');
  const [nodes, setNodes] = useState<EnterpriseNode[] | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    void fetchSubsidiaries(controller.signal).then((reply) => {
      if (!controller.signal.aborted && reply.code === 0) setNodes(reply.data ?? []);
    });
    return () => controller.abort();
  }, [version, reloads]);
  return (
    <Card size="small" title={t('tree.title')} data-testid="enterprise-tree"
      extra={<Button type="text" size="small" icon={<ReloadOutlined />} onClick={() => setReloads((n) => n + 1)} aria-label={t('tree.reload')} data-testid="enterprise-tree-reload" />}>
      {nodes && nodes.length === 0 ? <Empty /> : null}
      {nodes && nodes.length > 0 ? (
        <Tree showIcon defaultExpandAll blockNode treeData={treeData(nodes, t('state.0'))}
          selectedKeys={selected === undefined ? [] : [selected]}
          onSelect={(keys) => onSelect(keys.length ? Number(keys[0]) : undefined)} />
      ) : null}
    </Card>
  );
}
