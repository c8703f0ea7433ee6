/** A count column of a report whose non-zero cells open the alarms behind the number (alarmDrill.ts); the
 * export keeps the number (features/list/exporter.ts: a rendered element exports the field's text). */
import { Link } from 'react-router';
import type { ListRecord } from '../list/types';
import { alarmDetailHref, type AlarmCell } from './alarmDrill';

export function alarmCountColumn(field: string, cellOf: (record: ListRecord) => AlarmCell) {
  return {
    field,
    render: (value: unknown, record: ListRecord) => {
      const count = Number(value);
      const href = Number.isFinite(count) && count > 0 ? alarmDetailHref(cellOf(record)) : null;
      if (href === null) return value === null || value === undefined ? '' : String(value);
      return <Link to={href} data-testid="report-alarm-count" data-field={field}>{count}</Link>;
    },
  };
}
