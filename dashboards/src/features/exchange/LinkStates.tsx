/**
 * A superior platform's two links (main / sub) as the link service last saved them: state, connected since,
 * last heartbeat, sent / received / back-filled / thinned counts, 0x9101 mismatches and the last error.
 * Re-read every 10 s while the screen shows it.
 */
import { Space, Tag, Tooltip, Typography } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchLinkStates, type LinkState } from './api';

export const LINK_STATE_REFRESH_MS = 10_000;

const COLOURS: Record<string, string> = { connected: 'green', connecting: 'gold', logging_in: 'gold', refused: 'red', disconnected: 'default' };

function useLinkStates(platformId: number): LinkState[] | null {
  const [states, setStates] = useState<LinkState[] | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    const read = () => void fetchLinkStates(platformId, controller.signal).then((reply) => {
      if (!controller.signal.aborted && reply.code === 0 && reply.data) setStates(reply.data);
    });
    read();
    const timer = window.setInterval(read, LINK_STATE_REFRESH_MS);
    return () => {
      controller.abort();
      window.clearInterval(timer);
    };
  }, [platformId]);
  return states;
}

const when = (value: string | null): string => (value ? dayjs(value).format('YYYY-MM-DD HH:mm:ss') : '-');

export default function LinkStates({ platformId }: { platformId: number }) {
  const { t } = useTranslation('exchange');
  const states = useLinkStates(platformId);
  if (states === null) return null;
  if (states.length === 0) return <Typography.Text type="secondary" data-testid="link-states">{t('link.none')}</Typography.Text>;
  return (
    <Space direction="vertical" size={2} data-testid="link-states">
      {states.map((s) => (
        <div key={s.link} data-testid={`link-${s.link}`} data-state={s.state}>
          <Tag>{t(`link.${s.link}`)}</Tag>
          <Tag color={COLOURS[s.state] ?? 'default'}>{t(`link.states.${s.state}`, { defaultValue: s.state })}</Tag>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('link.since', { time: when(s.since) })} · {t('link.heartbeat', { time: when(s.lastHeartbeatAt) })}
          </Typography.Text>
          <br />
          <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid={`link-counts-${s.link}`}>
            {t('link.counts', { sent: s.sentCount, received: s.receivedCount, backfilled: s.backfilledCount, thinned: s.thinnedCount, mismatches: s.mismatchCount })}
          </Typography.Text>
          {s.lastError && (
            <Tooltip title={s.lastError}>
              <Typography.Text type="danger" style={{ fontSize: 12, marginLeft: 8 }}>{t('link.lastError')}</Typography.Text>
            </Tooltip>
          )}
        </div>
      ))}
    </Space>
  );
}
