/**
 * The geometry a fence or label point form is editing: what the user drew (map system), the stored one it
 * opened with (WGS-84, kept while the user draws nothing new on the same shape), a district code; and the
 * WGS-84 geometry a save sends.
 */
import { useCallback, useMemo, useState } from 'react';
import type { CoordSystem } from '../map/layers/coords';
import { fromDrawn, toDrawn, type Drawn, type Geometry, type Shape } from './geometry';

export function useFenceGeometry(shape: Shape, storedShape: Shape | undefined, stored: unknown) {
  const [drawn, setDrawn] = useState<Drawn | null>(null);
  const [coord, setCoord] = useState<CoordSystem | null>(null);
  const keepStored = shape === storedShape && drawn === null;
  const storedDistrict = storedShape === 'district' ? ((stored as { districtId?: number | string } | null)?.districtId ?? null) : null;
  const [districtId, setDistrictId] = useState<number | string | null>(storedDistrict);

  // What is on the map now, in its system: the drawing, else the stored geometry of the same shape.
  const current = useMemo<Drawn | null>(() => {
    if (drawn?.shape === shape) return drawn;
    return keepStored && coord ? toDrawn(shape, stored, coord) : null;
  }, [drawn, shape, keepStored, coord, stored]);

  const geometry = useMemo<Geometry | null>(() => {
    if (shape === 'district') return districtId !== null && districtId !== '' ? { districtId } : null;
    return current && coord ? fromDrawn(current, coord) : null;
  }, [shape, districtId, current, coord]);

  const onDrawn = useCallback((next: Drawn | null, system: CoordSystem) => {
    setCoord(system);
    setDrawn(next);
  }, []);

  return { drawn: current, geometry, districtId, setDistrictId, setDrawn, onDrawn, setCoord, stored: keepStored ? stored : null };
}
