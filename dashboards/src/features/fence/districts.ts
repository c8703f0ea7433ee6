/**
 * The province / city / district picker's model (platform-spec §9 label point type 6, a fence of shape
 * `district`): the regions of `GET /api/common/districtTree.json` as Cascader options, the path down to a
 * stored adcode (to open the picker on it), and a region's name as an address writes it (北京市东城区).
 */
import type { DistrictNode } from './api';

export interface DistrictOption {
  value: string;
  label: string;
  children?: DistrictOption[];
}

/** The Cascader's options: every region, its adcode the value. */
export function districtOptions(tree: DistrictNode[]): DistrictOption[] {
  return tree.map((node) => ({
    value: node.adcode,
    label: node.name,
    ...(node.children?.length ? { children: districtOptions(node.children) } : {}),
  }));
}

const indexes = new WeakMap<DistrictNode[], Map<string, DistrictNode[]>>();

/** Each adcode's path from its province down (built once per tree). */
function indexOf(tree: DistrictNode[]): Map<string, DistrictNode[]> {
  let index = indexes.get(tree);
  if (!index) {
    const built = new Map<string, DistrictNode[]>();
    const walk = (nodes: DistrictNode[], above: DistrictNode[]) => nodes.forEach((node) => {
      const path = [...above, node];
      if (!built.has(node.adcode)) built.set(node.adcode, path); // the first (highest) region of a code
      walk(node.children ?? [], path);
    });
    walk(tree, []);
    index = built;
    indexes.set(tree, index);
  }
  return index;
}

/** The regions from the province down to `adcode` (the Cascader's value is their adcodes), or null for a code
 * the tree does not have. */
export function districtPath(tree: DistrictNode[], adcode: string | number | null | undefined): DistrictNode[] | null {
  if (adcode === null || adcode === undefined || adcode === '') return null;
  return indexOf(tree).get(String(adcode)) ?? null;
}

/** The region's name with the regions above it, as an address writes it (广东省深圳市南山区); null for a code the
 * tree does not have. */
export function districtLabel(tree: DistrictNode[], adcode: string | number | null | undefined): string | null {
  const path = districtPath(tree, adcode);
  return path ? path.map((node) => node.name).join('') : null;
}
