import { useEffect, useMemo, useState } from 'react';
import { fetchSubsidiaries, type EnterpriseNode } from './api';

/** id -> short name of every enterprise of a tree (the caller's subtree). */
export function enterpriseNames(nodes: EnterpriseNode[]): Map<number, string> {
  const names = new Map<number, string>();
  const walk = (list: EnterpriseNode[]) => {
    for (const node of list) {
      names.set(node.id, node.shortName);
      walk(node.children ?? []);
    }
  };
  walk(nodes);
  return names;
}

export interface EnterpriseOption {
  value: number;
  title: string;
  children: EnterpriseOption[];
}

/** The caller's enterprise tree as TreeSelect options (value: id, title: short name). */
export const enterpriseOptions = (nodes: EnterpriseNode[]): EnterpriseOption[] =>
  nodes.map((node) => ({ value: node.id, title: node.shortName, children: enterpriseOptions(node.children ?? []) }));

/** A role's name as pickers and lists show it: its enterprise beside it, since every enterprise may
 * have a role of the same name (the seeded "管理员" of each). */
export function roleLabel(name: unknown, enterpriseId: unknown, names: Map<number, string>): string {
  const enterprise = names.get(Number(enterpriseId));
  return enterprise ? `${String(name)} (${enterprise})` : String(name);
}

/** The ids from a tree's root down to ``id`` (empty when ``id`` is not in the tree). */
export function lineageOf(nodes: EnterpriseNode[], id: number): Set<number> {
  const walk = (list: EnterpriseNode[], above: number[]): number[] | null => {
    for (const node of list) {
      const path = [...above, node.id];
      if (node.id === id) return path;
      const found = walk(node.children ?? [], path);
      if (found) return found;
    }
    return null;
  };
  return new Set(walk(nodes, []) ?? []);
}

/** The caller's enterprise tree (GET /api/aas/subsidiary.json), once per mount; `enabled` false: none. */
export function useEnterpriseTree(enabled = true): EnterpriseNode[] {
  const [nodes, setNodes] = useState<EnterpriseNode[]>([]);
  useEffect(() => {
    if (!enabled) return undefined;
    const controller = new AbortController();
    void fetchSubsidiaries(controller.signal).then((reply) => {
      if (!controller.signal.aborted && reply.code === 0) setNodes(reply.data ?? []);
    });
    return () => controller.abort();
  }, [enabled]);
  return nodes;
}

/** The names of the caller's enterprises (empty until the tree has loaded). */
export function useEnterpriseNames(enabled = true): Map<number, string> {
  const nodes = useEnterpriseTree(enabled);
  return useMemo(() => enterpriseNames(nodes), [nodes]);
}
