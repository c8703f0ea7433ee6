/**
 * A route's segments and each one's rules (corridor width, shortest / longest time, speed limit and its
 * duration), the route wizard's step 2 and the route part of the fence form. Edits the drawn route in place.
 */
import { InputNumber, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { withSegmentRule, type Drawn, type RouteSegment } from './geometry';

type Rules = Omit<RouteSegment, 'points'>;
type RouteDrawn = Extract<Drawn, { shape: 'route' }>;
const RULES: (keyof Rules)[] = ['width', 'minTime', 'maxTime', 'speedLimit', 'overspeedDuration'];

export function SegmentTable({ route, onChange }: { route: RouteDrawn | null; onChange: (route: RouteDrawn) => void }) {
  const { t } = useTranslation('fence');
  if (!route || route.segments.length === 0) return <p data-testid="segments-none">{t('fence.segments.none')}</p>;
  const rows = route.segments.map((segment, index) => ({ key: index, index, segment }));
  return (
    <Table size="small" pagination={false} dataSource={rows} data-testid="route-segments" title={() => t('fence.segments.title')}
      columns={[
        { key: 'index', title: t('fence.segments.index'), render: (_v, row) => row.index + 1, width: 60 },
        { key: 'points', title: t('fence.segments.points'), render: (_v, row) => row.segment.line.length, width: 70 },
        ...RULES.map((rule) => ({
          key: rule,
          title: t(`fence.segments.${rule}`),
          render: (_v: unknown, row: (typeof rows)[number]) => (
            <InputNumber data-testid={`segment-${rule}-${row.index}`} min={rule === 'width' ? 1 : 0} style={{ width: 100 }}
              value={(row.segment[rule] as number | null | undefined) ?? null}
              onChange={(value) => onChange(withSegmentRule(route, row.index, rule, typeof value === 'number' ? value : null))} />
          ),
        })),
      ]} />
  );
}
