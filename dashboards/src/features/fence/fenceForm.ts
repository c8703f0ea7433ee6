/**
 * The fence form's values and rules (platform-spec §2 settings "fence", §9 enumerations; the columns of
 * 0040_fences.sql): form values <-> the `fence` entity's record, and the checks made before a save (the
 * server checks them again and answers a 400 naming the field).
 */
import dayjs, { type Dayjs } from 'dayjs';
import type { Geometry, Shape } from './geometry';

/** Platform-spec §9: 1 stay-in-place, 2 fence alarm, 3 overspeed, 4 route fence. */
export const FENCE_TYPES = [1, 2, 3, 4] as const;
/** Platform-spec §9: 1 platform (checked by the streams), 2 terminal (sent as 8600/8602/8604/8606). */
export const BUSINESS_TYPES = [1, 2] as const;
/** Platform-spec §9 fence attributes: 1 speed limit, 2 / 3 in-area alarm to driver / platform, 4 / 5 out-of-area
 * alarm to driver / platform, 8 no door opening, 14 close comms module in area, 15 collect GNSS detail in area. */
export const ATTRIBUTES = [1, 2, 3, 4, 5, 8, 14, 15] as const;
export const FENCE_SHAPES: Shape[] = ['circle', 'rectangle', 'polygon', 'route', 'district'];
/** Platform-spec §9 label point types 1-6 and the shape each is drawn as. */
export const LABEL_POINT_SHAPES: Record<number, Shape> = { 1: 'point', 2: 'circle', 3: 'rectangle', 4: 'polygon', 5: 'route', 6: 'district' };
/** Platform-spec §9 label point business types: 1 parking lot, 2 waypoint, 3 station, 4 area vehicle search, 5 fence, 6 route. */
export const LABEL_POINT_BUSINESS_TYPES = [1, 2, 3, 4, 5, 6] as const;
/** Label point business type "area vehicle search" (platform-spec §9). */
export const AREA_SEARCH_BUSINESS_TYPE = 4;
export const ROUTE_FENCE_TYPE = 4;
export const STAY_FENCE_TYPE = 1;
export const OVERSPEED_FENCE_TYPE = 3;
export const SPEED_LIMIT_ATTRIBUTE = 1;
/** Corridor width a new route segment gets, metres. */
export const DEFAULT_CORRIDOR_M = 50;

export type TimeWindow = 'always' | 'absolute' | 'daily';

export interface FenceFormValues {
  name: string;
  enterpriseId?: number;
  fenceType: number;
  businessType: number;
  shape: Shape;
  attributes: number[];
  window: TimeWindow;
  absolute?: [Dayjs, Dayjs] | null;
  daily?: [Dayjs, Dayjs] | null;
  speedLimit?: number | null;
  overspeedDuration?: number | null;
  nightSpeedLimit?: number | null;
  stayLimit?: number | null;
  remark?: string;
}

export const NEW_FENCE: FenceFormValues = {
  name: '', fenceType: 2, businessType: 1, shape: 'polygon', attributes: [3, 5], window: 'always', remark: '',
};

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The form's values of a stored fence. */
export function valuesOf(record: Record<string, unknown>): FenceFormValues {
  const dailyStart = record.dailyStart as string | null | undefined;
  const dailyEnd = record.dailyEnd as string | null | undefined;
  const startTime = record.startTime as string | null | undefined;
  const endTime = record.endTime as string | null | undefined;
  const window: TimeWindow = startTime && endTime ? 'absolute' : dailyStart && dailyEnd ? 'daily' : 'always';
  const today = dayjs().format('YYYY-MM-DD');
  return {
    name: String(record.name ?? ''),
    enterpriseId: num(record.enterpriseId) ?? undefined,
    fenceType: num(record.fenceType) ?? 2,
    businessType: num(record.businessType) ?? 1,
    shape: (record.shape as Shape) ?? 'polygon',
    attributes: Array.isArray(record.attributes) ? (record.attributes as number[]) : [],
    window,
    absolute: window === 'absolute' ? [dayjs(startTime), dayjs(endTime)] : null,
    daily: window === 'daily' ? [dayjs(`${today} ${dailyStart}`), dayjs(`${today} ${dailyEnd}`)] : null,
    speedLimit: num(record.speedLimit),
    overspeedDuration: num(record.overspeedDuration),
    nightSpeedLimit: num(record.nightSpeedLimit),
    stayLimit: num(record.stayLimit),
    remark: String(record.remark ?? ''),
  };
}

/** The body a save sends. A time window not chosen is sent as nulls, so an edit can remove it. */
export function bodyOf(values: FenceFormValues, geometry: Geometry): Record<string, unknown> {
  const absolute = values.window === 'absolute' && values.absolute ? values.absolute : null;
  const daily = values.window === 'daily' && values.daily ? values.daily : null;
  const body: Record<string, unknown> = {
    name: values.name.trim(),
    fenceType: values.fenceType,
    businessType: values.businessType,
    shape: values.shape,
    geometry,
    attributes: [...values.attributes].sort((a, b) => a - b),
    startTime: absolute ? absolute[0].toISOString() : null,
    endTime: absolute ? absolute[1].toISOString() : null,
    dailyStart: daily ? daily[0].format('HH:mm:ss') : null,
    dailyEnd: daily ? daily[1].format('HH:mm:ss') : null,
    speedLimit: values.speedLimit ?? null,
    overspeedDuration: values.overspeedDuration ?? null,
    nightSpeedLimit: values.nightSpeedLimit ?? null,
    stayLimit: values.fenceType === STAY_FENCE_TYPE ? (values.stayLimit ?? null) : null,
    remark: (values.remark ?? '').trim(),
  };
  if (values.enterpriseId !== undefined) body.enterpriseId = values.enterpriseId;
  return body;
}

/** A rule a fence breaks, as the i18n key of `fence:errors.*` and the form field it is shown on. */
export interface FenceProblem {
  field: string;
  key: string;
}

/**
 * The rules of 0040_fences.sql and of the wire before a save: a route is exactly a route fence (type 4); a
 * province / city / district has no terminal area code, so it is a platform fence; a speed limit when the
 * fence limits speed (type 3 or attribute 1); a stay limit for a stay-in-place fence (type 1); a window ends
 * after it starts; something drawn (for a district: a region picked).
 */
export function problemsOf(values: FenceFormValues, geometry: Geometry | null): FenceProblem[] {
  const problems: FenceProblem[] = [];
  if (!values.name.trim()) problems.push({ field: 'name', key: 'errors.name' });
  if (!geometry) problems.push({ field: 'shape', key: values.shape === 'district' ? 'errors.noDistrict' : 'errors.noGeometry' });
  if ((values.shape === 'route') !== (values.fenceType === ROUTE_FENCE_TYPE)) problems.push({ field: 'fenceType', key: 'errors.routeType' });
  if (values.shape === 'district' && values.businessType !== 1) problems.push({ field: 'businessType', key: 'errors.districtTerminal' });
  const limitsSpeed = values.fenceType === OVERSPEED_FENCE_TYPE || values.attributes.includes(SPEED_LIMIT_ATTRIBUTE);
  if (limitsSpeed && values.shape !== 'route' && !(values.speedLimit && values.speedLimit > 0)) problems.push({ field: 'speedLimit', key: 'errors.speedLimit' });
  if (values.fenceType === STAY_FENCE_TYPE && !(values.stayLimit && values.stayLimit > 0)) problems.push({ field: 'stayLimit', key: 'errors.stayLimit' });
  if (values.window === 'absolute') {
    const range = values.absolute;
    if (!range || !range[1].isAfter(range[0])) problems.push({ field: 'absolute', key: 'errors.window' });
  }
  if (values.window === 'daily' && !values.daily) problems.push({ field: 'daily', key: 'errors.window' });
  if (geometry && 'segments' in geometry) {
    geometry.segments.forEach((segment) => {
      if (segment.points.length < 2 || !(segment.width > 0)) problems.push({ field: 'shape', key: 'errors.segment' });
      if (segment.minTime && segment.maxTime && segment.minTime > segment.maxTime) problems.push({ field: 'shape', key: 'errors.segmentTime' });
    });
  }
  if (geometry && 'rings' in geometry && geometry.rings[0].length < 3) problems.push({ field: 'shape', key: 'errors.noGeometry' });
  return problems;
}

/** The shapes a fence of this type may have: a route fence is a route, the others any area. */
export function shapesFor(fenceType: number): Shape[] {
  return fenceType === ROUTE_FENCE_TYPE ? ['route'] : FENCE_SHAPES.filter((s) => s !== 'route');
}
