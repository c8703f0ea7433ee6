/**
 * The binding screen's model: the vehicle picker's tree (the caller's enterprises with their vehicles as
 * leaves) and each bound vehicle's row with its terminal sync state (`fenceSync`: pending, sent,
 * acknowledged, failed with the terminal's 0x0001 result).
 */
import type { EnterpriseNode } from '../org/api';
import type { ListRecord } from '../list/types';

export interface PickerNode {
  value: string;
  title: string;
  children?: PickerNode[];
  /** A vehicle already bound is shown ticked off and cannot be picked again. */
  disabled?: boolean;
}

export const carValue = (carId: number) => `c_${carId}`;

/** The car ids of picked tree values (enterprise values stand for nothing: their vehicles are listed). */
export function pickedCarIds(values: string[]): number[] {
  return [...new Set(values.filter((v) => v.startsWith('c_')).map((v) => Number(v.slice(2))).filter(Number.isInteger))];
}

/** Enterprises (value `e_<id>`) with their vehicles (`c_<carId>`, plate number) under them; an enterprise
 * with no vehicle anywhere below it is left out. */
export function pickerTree(enterprises: EnterpriseNode[], cars: ListRecord[], bound: Set<number>): PickerNode[] {
  const byEnterprise = new Map<number, PickerNode[]>();
  for (const car of cars) {
    const id = Number(car.id);
    const list = byEnterprise.get(Number(car.enterpriseId)) ?? [];
    list.push({ value: carValue(id), title: String(car.plateNumber ?? id), disabled: bound.has(id) });
    byEnterprise.set(Number(car.enterpriseId), list);
  }
  const walk = (nodes: EnterpriseNode[]): PickerNode[] => nodes.flatMap((node) => {
    const children = [...walk(node.children ?? []), ...(byEnterprise.get(node.id) ?? [])];
    return children.length ? [{ value: `e_${node.id}`, title: node.shortName, children }] : [];
  });
  return walk(enterprises);
}

export type SyncState = 'pending' | 'sent' | 'acknowledged' | 'failed';

export interface BoundRow {
  carId: number;
  plateNumber: string;
  createdAt: string;
  /** The terminal fence's state on the vehicle's terminals (the worst of them), or null for a platform fence
   * or before the reconciler has seen the binding. */
  syncState: SyncState | null;
  result: number | null;
  error: string | null;
  syncUpdatedAt: string | null;
}

/** Worst first: what needs the user's attention. */
const SEVERITY: SyncState[] = ['failed', 'pending', 'sent', 'acknowledged'];

/** Each bound vehicle with the sync state of its terminals (a vehicle with two terminals shows the worse). */
export function boundRows(bindings: ListRecord[], syncs: ListRecord[]): BoundRow[] {
  const syncByCar = new Map<number, ListRecord>();
  for (const sync of syncs) {
    if (sync.wanted === 'delete') continue; // an unbound vehicle's delete is not a bound vehicle's state
    const carId = Number(sync.carId);
    const known = syncByCar.get(carId);
    if (!known || SEVERITY.indexOf(sync.state as SyncState) < SEVERITY.indexOf(known.state as SyncState)) syncByCar.set(carId, sync);
  }
  return bindings.map((binding) => {
    const carId = Number(binding.carId);
    const sync = syncByCar.get(carId);
    return {
      carId,
      plateNumber: String(binding.plateNumber ?? carId),
      createdAt: String(binding.createdAt ?? ''),
      syncState: (sync?.state as SyncState | undefined) ?? null,
      result: typeof sync?.result === 'number' ? sync.result : null,
      error: typeof sync?.error === 'string' ? sync.error : null,
      syncUpdatedAt: typeof sync?.updatedAt === 'string' ? sync.updatedAt : null,
    };
  });
}
