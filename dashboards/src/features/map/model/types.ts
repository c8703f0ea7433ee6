/** API rows the live map reads (api/README.md, platform-spec §3). */

/** A carView row as selected by `CAR_VIEW_SELECT`. */
export interface CarRow {
  carId: number;
  enterpriseId: number;
  groupId: number | null;
  plateNumber: string;
  plateColor: number | null;
  vin: string | null;
  iconId?: number | null;
  masterDeviceId: number | null;
  masterDeviceSn: string | null;
  masterDevicePhone: string | null;
  masterDeviceBizState: number | null;
  masterDeviceState: number | null;
  lastOnlineTime: string | null;
  hasVideo: number | null;
  hasPhoto: number | null;
  hasMicrophone: number | null;
  driverId: number | null;
  driverName: string | null;
}

export const CAR_VIEW_SELECT = [
  'carId',
  'enterpriseId',
  'groupId',
  'plateNumber',
  'plateColor',
  'vin',
  'iconId',
  'masterDeviceId',
  'masterDeviceSn',
  'masterDevicePhone',
  'masterDeviceBizState',
  'masterDeviceState',
  'lastOnlineTime',
  'hasVideo',
  'hasPhoto',
  'hasMicrophone',
  'driverId',
  'driverName',
].join(',');

/** GET /api/aas/subsidiary.json?select=id,shortName,children: the root and nested subsidiaries. */
export interface EnterpriseRow {
  id: number;
  shortName: string | null;
  name?: string | null;
  children?: EnterpriseRow[];
}

/** POST /api/common/query/group.json row. */
export interface GroupRow {
  id: number;
  name: string;
  enterpriseId: number;
  parentId: number | null;
}

/** GET /api/system/mapConfig.json (work in progress on the API side: every field optional). */
export interface MapConfig {
  tiandituKey?: string | null;
  bingKey?: string | null;
  amapKey?: string | null;
  mapCenter?: { lng: number; lat: number } | null;
  defaultZoom?: number | null;
  baseLayers?: (string | BaseLayerConfig)[] | null;
  defaultBaseLayer?: string | null;
  maxZoom?: number | null;
}

export interface BaseLayerConfig {
  id?: string;
  name?: string;
  provider?: string;
  url?: string;
  subdomains?: string | string[];
  attribution?: string;
  maxZoom?: number;
}
