/** The region tree of the district picker and of the lists' district names (`GET /api/common/districtTree.json`). */
import { useEffect, useState } from 'react';
import { fetchDistrictTree, type DistrictNode } from './api';

let cached: Promise<DistrictNode[] | null> | null = null;

/** The region tree, read once and shared by every picker and list cell; a failed read (already shown by the
 * client's failure handler) is tried again by the next one that asks. */
function loadDistrictTree(): Promise<DistrictNode[] | null> {
  cached ??= fetchDistrictTree().then((reply) => {
    if (reply.code === 0 && Array.isArray(reply.data)) return reply.data;
    cached = null;
    return null;
  });
  return cached;
}

export function useDistrictTree(): DistrictNode[] | null {
  const [tree, setTree] = useState<DistrictNode[] | null>(null);
  useEffect(() => {
    let live = true;
    void loadDistrictTree().then((found) => {
      if (live) setTree(found);
    });
    return () => {
      live = false;
    };
  }, []);
  return tree;
}
