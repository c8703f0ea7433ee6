/** Pure helpers of the filter kinds (types.ts FilterKind): the enterprise subtree, the day presets. */
import dayjs, { type Dayjs } from 'dayjs';
import type { EnterpriseNode } from '../org/api';

/** Every id of a node's subtree, the node first. */
export function subtreeIds(node: EnterpriseNode): number[] {
  return [node.id, ...(node.children ?? []).flatMap(subtreeIds)];
}

/** Quick ranges of the day filter: the last 7 and 30 days (to yesterday), this month, last month. */
export function dayPresets(now: Dayjs = dayjs()): { key: string; value: [Dayjs, Dayjs] }[] {
  const yesterday = now.subtract(1, 'day').startOf('day');
  const lastMonth = now.subtract(1, 'month');
  return [
    { key: 'last7', value: [yesterday.subtract(6, 'day'), yesterday] },
    { key: 'last30', value: [yesterday.subtract(29, 'day'), yesterday] },
    { key: 'thisMonth', value: [now.startOf('month'), now.startOf('day')] },
    { key: 'lastMonth', value: [lastMonth.startOf('month'), lastMonth.endOf('month').startOf('day')] },
  ];
}
