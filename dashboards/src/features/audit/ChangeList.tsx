import { Typography } from 'antd';
import { fieldChanges } from './changes';

/** An audit row's changes: one line per field, `field: before → after`. */
export default function ChangeList({ changes }: { changes: unknown }) {
  const lines = fieldChanges(changes);
  return (
    <div data-testid="audit-changes" style={{ maxWidth: 520 }}>
      {lines.map(({ field, before, after }) => (
        <div key={field} data-testid={`audit-change-${field}`} style={{ wordBreak: 'break-all' }}>
          <Typography.Text strong>{field}</Typography.Text>
          {': '}
          <Typography.Text type="secondary" delete={before !== after}>{before}</Typography.Text>
          {' → '}
          <Typography.Text>{after}</Typography.Text>
        </div>
      ))}
    </div>
  );
}
