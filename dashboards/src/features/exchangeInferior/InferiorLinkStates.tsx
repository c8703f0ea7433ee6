import { Space, Tag, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchInferiorLinkStates, type InferiorLinkState } from './api';

const REFRESH_MS = 5000;

/** The main and sub link of one inferior platform (state, peer, counts), refreshed while shown. */
export default function InferiorLinkStates({ platformId }: { platformId: number }) {
  const { t } = useTranslation('inferior');
  const [links, setLinks] = useState<InferiorLinkState[] | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    const load = () => void fetchInferiorLinkStates(platformId, controller.signal).then((reply) => {
      if (reply.code === 0 && reply.data) setLinks(reply.data);
    });
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [platformId]);
  if (!links || links.length === 0) return <Tag data-testid={`links-${platformId}`}>{t('links.never')}</Tag>;
  return (
    <Space size={4} data-testid={`links-${platformId}`}>
      {links.map((link) => (
        <Tooltip key={link.link} title={t('links.detail', {
          peer: link.peer ?? '-', received: link.receivedCount, sent: link.sentCount, positions: link.positionsCount,
          error: link.lastError ?? '-' })}>
          <Tag color={link.state === 'up' ? 'green' : link.state === 'connecting' ? 'orange' : 'default'}
            data-state={link.state}>
            {t(`links.${link.link}`)}: {t(`links.state.${link.state}`, { defaultValue: link.state })}
          </Tag>
        </Tooltip>
      ))}
    </Space>
  );
}
