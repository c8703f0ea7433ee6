/**
 * The province / city / district picker's model (platform-spec §9 label point type 6, a fence of shape
 * `district`): the regions of `GET /api/common/districtTree.json` as Cascader options, what a pick makes the
 * area (a region with an outline; a city without one is only the way to its districts), the path down to a
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

/** What a pick in the Cascader (the adcodes from the province down) makes the area: the last region's adcode
 * when it has an outline; else no area, and the region that has none (the picker says to go on to a district). */
export function pickedArea(tree: DistrictNode[], picked: (string | number)[] | null | undefined):
  { adcode: string | null; withoutOutline: DistrictNode | null } {
  const last = picked?.length ? String(picked[picked.length - 1]) : null;
  const node = last === null ? null : districtPath(tree, last)?.at(-1) ?? null;
  if (!node) return { adcode: null, withoutOutline: null };
  return node.outline === false ? { adcode: null, withoutOutline: node } : { adcode: node.adcode, withoutOutline: null };
}
