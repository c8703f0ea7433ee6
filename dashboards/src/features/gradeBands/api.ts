/** The driving-behaviour grade bands of an enterprise (fleet/grade_bands.py): read in effect from
 * `GET /api/drivingGradeRule/bands.json`, kept as the enterprise's own dictionary entry (type 50, code
 * driving_behavior_grade, platform-spec §3 and §9) through the dictionary routes, the one CRUD path. */
import { http } from '../../api/client';
import { createRecord, deleteRecord, updateRecord } from '../list/api';

export interface GradeBand {
  grade: string;
  minScore: number;
}

export type BandsSource = 'own' | 'inherited' | 'system' | 'default';

export interface BandsInEffect {
  enterpriseId: number;
  /** Highest minimum first. */
  grades: GradeBand[];
  source: BandsSource;
  /** The enterprise whose entry they are (own or inherited). */
  sourceEnterpriseId: number | null;
  /** The enterprise's own entry (source own). */
  entryId: number | null;
}

export const BANDS_TYPE = 50;
export const BANDS_CODE = 'driving_behavior_grade';

export function fetchBands(enterpriseId: number | undefined, signal?: AbortSignal) {
  return http.get<BandsInEffect>('/api/drivingGradeRule/bands.json', { params: { enterpriseId }, signal });
}

/** Saves `grades` as the enterprise's own bands: its entry updated, or created when it follows others'. */
export function saveBands(current: BandsInEffect, grades: GradeBand[], name: string) {
  const content = JSON.stringify({ grades: [...grades].sort((a, b) => b.minScore - a.minScore) });
  if (current.source === 'own' && current.entryId !== null) return updateRecord('dictionary', current.entryId, { content });
  return createRecord('dictionary', { type: BANDS_TYPE, code: BANDS_CODE, name, content, enterpriseId: current.enterpriseId });
}

/** Deletes the enterprise's own bands: it follows its parent's (or the platform's) again. */
export function resetBands(current: BandsInEffect) {
  return deleteRecord('dictionary', current.entryId);
}
