/** The header's count of waiting safety alarms; a click opens the dialog on the newest. */
import { AlertOutlined } from '@ant-design/icons';
import { Badge, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { QUEUE_LIMIT } from './safetyQueue';
import { safetyQueue, useSafetyQueue, type SafetyQueueStore } from './safetyQueueStore';

export default function SafetyQueueBadge({ store = safetyQueue }: { store?: SafetyQueueStore }) {
  const { t } = useTranslation('alarm');
  const queue = useSafetyQueue(store);
  if (queue.length === 0) return null;
  const muted = queue.filter((entry) => entry.muted).length;
  return (
    <Tooltip title={t('dialog.queue.badge', { count: queue.length, muted })}>
      <span
        className="header-action"
        role="button"
        tabIndex={0}
        data-testid="safety-queue-badge"
        data-count={queue.length}
        aria-label={t('dialog.queue.badge', { count: queue.length, muted })}
        onClick={() => store.requestOpen()}
        onKeyDown={(event) => {
          if (event.key === 'Enter' || event.key === ' ') store.requestOpen();
        }}
      >
        <Badge count={queue.length} overflowCount={QUEUE_LIMIT} size="small" offset={[2, -2]}>
          <AlertOutlined style={{ fontSize: 16, color: '#cf1322' }} />
        </Badge>
      </span>
    </Tooltip>
  );
}
