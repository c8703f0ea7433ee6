/**
 * The video channel tree (platform-spec §7): vehicles with cameras (online first), their channels,
 * and a separate talk channel. A channel plays in the selected window; a vehicle plays all its
 * channels in turn; a talk channel opens the talk dialog; a channel whose stream is up (push 14) is
 * green. Test ids: `channel-tree`, `channel-node-<key>` (`data-online`, `data-streaming`), `play-car-<carId>`, `talk-car-<carId>`.
 */
import { AudioOutlined, PlayCircleOutlined, VideoCameraOutlined } from '@ant-design/icons';
import { Button, Input, Spin, Tree, Typography } from 'antd';
import { useMemo, useState, type Key } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChannelNode } from './channelTree';

interface Props {
  nodes: ChannelNode[] | null;
  online: (deviceId: number) => boolean;
  onPlay: (nodes: ChannelNode[]) => void;
  onTalk: (car: ChannelNode) => void;
  height: number;
  /** `<deviceId>-<channel>` of the live streams a terminal feeds now (push 14). */
  streaming?: ReadonlySet<string>;
}

export function ChannelTree({ nodes, online, onPlay, onTalk, height, streaming }: Props) {
  const { t } = useTranslation('video');
  const [search, setSearch] = useState('');
  const [expanded, setExpanded] = useState<Key[] | null>(null);
  const shown = useMemo(() => (nodes ?? []).filter((n) => !search || n.plateNumber.includes(search.trim())), [nodes, search]);

  const title = (node: ChannelNode) => {
    const isOnline = online(node.deviceId);
    if (node.kind === 'car') {
      return (
        <span data-testid={`channel-node-${node.key}`} data-online={isOnline ? 1 : 0}>
          <Typography.Text type={isOnline ? undefined : 'secondary'}>{node.plateNumber}</Typography.Text>{' '}
          <Button size="small" type="link" icon={<PlayCircleOutlined />} data-testid={`play-car-${node.carId}`} aria-label={t('tree.playAll')}
            onClick={(e) => { e.stopPropagation(); onPlay(node.children?.filter((c) => c.kind === 'channel') ?? []); }} />
          <Button size="small" type="link" icon={<AudioOutlined />} data-testid={`talk-car-${node.carId}`} aria-label={t('tree.talk')}
            onClick={(e) => { e.stopPropagation(); onTalk(node); }} />
        </span>
      );
    }
    const live = node.kind === 'channel' && !!streaming?.has(`${node.deviceId}-${node.channelId}`);
    return (
      <span data-testid={`channel-node-${node.key}`} data-online={isOnline ? 1 : 0} data-streaming={live ? 1 : 0}>
        {node.kind === 'talk' ? <AudioOutlined /> : <VideoCameraOutlined style={live ? { color: '#52c41a' } : undefined} />}{' '}
        {node.kind === 'talk' ? t('tree.talkChannel', { n: node.channelId }) : t('tree.channel', { n: node.channelId })}
      </span>
    );
  };

  return (
    <div data-testid="channel-tree" style={{ display: 'flex', flexDirection: 'column', gap: 8, height }}>
      <Input.Search allowClear size="small" placeholder={t('tree.search')} onChange={(e) => setSearch(e.target.value)} data-testid="channel-search" />
      {nodes === null ? <Spin /> : (
        <div style={{ flex: 1, overflow: 'auto' }}>
          <Tree<ChannelNode>
            blockNode
            // A search opens every vehicle it finds; otherwise the first three, then what the user opened.
            expandedKeys={search ? shown.map((n) => n.key) : (expanded ?? shown.slice(0, 3).map((n) => n.key))}
            onExpand={(keys) => setExpanded(keys)}
            treeData={shown}
            fieldNames={{ key: 'key', children: 'children' }}
            titleRender={title}
            onSelect={(_, info) => {
              const node = info.node as unknown as ChannelNode;
              if (node.kind === 'channel') onPlay([node]);
              else if (node.kind === 'talk') onTalk(node);
            }}
          />
          {shown.length === 0 && <Typography.Text type="secondary">{t('tree.none')}</Typography.Text>}
        </div>
      )}
    </div>
  );
}
