import { Tag } from 'antd';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import AnswerDialog from '../../features/exchange/AnswerDialog';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord } from '../../features/list/types';
import { formatDuration, READ_ONLY } from '../../features/log/logScreens';

export const ENTITY = 'inspectMessage';

const STATE_COLOURS: Record<string, string> = { open: 'gold', answered: 'blue', sent: 'green', expired: 'red' };

/** Data exchange "inspectMessage" (platform-spec §2): the superiors' inspections (查岗, 0x9301) with their
 * question, deadline, state (open / answered / sent / expired), who answered, when and how fast; an open one
 * is answered here too (the `superior` action). */
export default function InspectMessageScreen() {
  const { t } = useTranslation(['exchange', 'log']);
  const [answering, setAnswering] = useState<{ record: ListRecord; reload: () => void } | null>(null);
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'exchange:inspectMessage',
    columns: ['receivedAt', 'platformName', 'question',
      { field: 'deadline', render: (value) => (value ? dayjs(String(value)).format('YYYY-MM-DD HH:mm:ss') : '') },
      { field: 'state', render: (value) => <Tag color={STATE_COLOURS[String(value)]} data-testid="inspection-state">{t(`exchange:inspectMessage.enums.state.${String(value)}`)}</Tag> },
      'answer', 'answeredByName', 'answeredAt',
      { field: 'answerLatency', render: (value) => (value === null || value === undefined ? '' : formatDuration(value, t)) }],
    filters: ['platformId', 'receivedAt', 'state'],
    filterKinds: { platformId: { kind: 'ref', entity: 'superiorPlatform' } },
    features: READ_ONLY,
    rowActions: [{
      key: 'answer', action: 'superior', label: t('exchange:inspection.answer'),
      visible: (record) => record.state === 'open',
      onClick: (record, context) => setAnswering({ record, reload: context.reload }),
    }],
  }), [t]);
  return (
    <>
      <ListPage screen={screen} />
      <AnswerDialog record={answering?.record ?? null} onClose={(answered) => {
        if (answered) answering?.reload();
        setAnswering(null);
      }} />
    </>
  );
}
