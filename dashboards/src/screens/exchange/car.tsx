import { Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ExchangeVideoDialog from '../../features/exchangeInferior/ExchangeVideoDialog';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'exchangeCar';

// A request that failed or was not answered is red; one playing green (the inferiorRequest list's colours).
const VIDEO_STATE_COLOURS: Record<string, string> = { queued: 'default', sent: 'processing', playing: 'green', failed: 'red', expired: 'red', ended: 'default' };

/** Data exchange "car" (platform-spec §2): the vehicles inferior platforms reported over JT/T 809 (plate and colour
 * per platform, the 0x1201 registration, the last position). Read-only; holders of inferiorPlatform:superior watch
 * a vehicle live or a recording of it through its platform (JT/T 1078-2016 §8.2, §8.5, ExchangeVideoDialog); the
 * list below shows what was asked, by whom, and what the platform answered. */
export default function ExchangeCarScreen() {
  const { t } = useTranslation('inferior');
  const [watching, setWatching] = useState<{ id: number; plate: string } | null>(null);
  const [asked, setAsked] = useState(0);
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'inferior:car',
    columns: ['plate', 'plateColor', 'platformName', 'terminalModel', 'terminalId', 'sim', 'registeredAt', 'lastFixAt',
      'lng', 'lat', 'speedKmh'],
    filters: ['plate', 'platformId', 'lastFixAt'],
    features: { create: false, edit: false, delete: false, import: false, export: true },
    rowActions: [
      { key: 'video', action: 'superior', label: t('video.action'),
        onClick: (record) => setWatching({ id: Number(record.id), plate: String(record.plate) }) },
    ],
  }), [t]);
  const requests = useMemo(() => defineListScreen({
    entity: 'inferiorVideoRequest',
    namespace: 'inferior:videoRequest',
    columns: ['plate', 'platformName',
      { field: 'kind', render: (value) => t(`videoRequest.enums.kind.${String(value)}`) },
      'channelId', { field: 'avItemType', render: (value) => t(`video.av.${String(value)}`) },
      { field: 'state', render: (value) => <Tag color={VIDEO_STATE_COLOURS[String(value)]} data-testid="video-request-state">{t(`videoRequest.enums.state.${String(value)}`)}</Tag> },
      { field: 'result', render: (value) => (value === null || value === undefined ? '' : `${String(value)} ${t(`video.results.${String(value)}`, { defaultValue: '' })}`) },
      'error', 'serverAddress', 'createdByName', 'createdAt', 'latencyMs', 'startTime', 'endTime', 'endedAt'],
    filters: ['plate', 'kind', 'state'],
    features: { create: false, edit: false, delete: false, import: false, export: true },
  }), [t]);
  return (
    <>
      <ListPage screen={screen} />
      <h3 style={{ marginTop: 24 }}>{t('videoRequest.title')}</h3>
      <ListPage key={asked} screen={requests} />
      <ExchangeVideoDialog vehicle={watching} onClose={() => { setWatching(null); setAsked((n) => n + 1); }} />
    </>
  );
}
