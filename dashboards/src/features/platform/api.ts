/** The platform administrator's settings calls (api/routes/settings.py, api/routes/open_platform.py):
 * the database's health, the version log, the open platform's API groups and an app's new secret. */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';

export interface GpsPartition {
  name: string;
  day: string | null;
  sizeBytes: number;
  estimatedRows: number;
  default: boolean;
  /** Older than the retention: due to be dropped. */
  expired: boolean;
}

export interface DatabaseReport {
  version: string;
  timescaledb: string | null;
  partitioning: 'native' | 'timescaledb' | 'none';
  connections: number;
  databaseConnections: number;
  maxConnections: number;
  name: string;
  sizeBytes: number;
  tables: { name: string; sizeBytes: number; estimatedRows: number }[];
  partitions: GpsPartition[];
  retention: { days: number; cutoff: string | null; expiredPartitions: number; expiredBytes: number; expiredRows: number };
}

export interface Release {
  title: string;
  date: string | null;
  items: string[];
}

export interface VersionLog {
  version: string;
  commit: string | null;
  migrations: { id: string; appliedAt: string }[];
  releases: Release[];
}

export interface ApiGroup {
  name: string;
  label: string;
  labelEn: string;
  permissions: { code: string; actions: string[] }[];
  routes: string[];
}

export interface IssuedSecret {
  id: number;
  appKey: string;
  appSecret: string;
}

export function fetchDatabaseReport(signal?: AbortSignal): Promise<ApiReply<DatabaseReport | null>> {
  return http.get<DatabaseReport | null>('/api/system/db.json', { signal });
}

export function createPartitionsNow(): Promise<ApiReply<{ created: string[] } | null>> {
  return http.post<{ created: string[] } | null>('/api/system/db/partitions.json', {});
}

export function fetchVersionLog(signal?: AbortSignal): Promise<ApiReply<VersionLog | null>> {
  return http.get<VersionLog | null>('/api/system/version.json', { signal });
}

export function fetchApiGroups(signal?: AbortSignal): Promise<ApiReply<ApiGroup[] | null>> {
  return http.get<ApiGroup[] | null>('/api/openPlatform/apis.json', { signal });
}

export function issueNewSecret(appId: unknown): Promise<ApiReply<IssuedSecret | null>> {
  return http.post<IssuedSecret | null>(`/api/common/openApp/${String(appId)}/secret.json`);
}

/** A platform parameter that takes effect at run time (GET /api/system/param.json, api/platform_params.py). */
export interface PlatformParam {
  name: string;
  id: number;
  type: 'int' | 'float' | 'choice';
  unit: 'day' | 'degree' | null;
  value: number | string;
  /** The configured value (environment), what "reset" goes back to. */
  default: number | string;
  min: number | null;
  max: number | null;
  options: string[] | null;
  updatedBy: string | null;
  updatedAt: string | null;
}

export function fetchPlatformParams(signal?: AbortSignal): Promise<ApiReply<PlatformParam[] | null>> {
  return http.get<PlatformParam[] | null>('/api/system/param.json', { signal });
}

/** value null: back to the configured value. A refused value (type, range) answers its reason; the client has shown it. */
export function updatePlatformParam(name: string, value: number | string | null): Promise<ApiReply<PlatformParam | null>> {
  return http.post<PlatformParam | null>('/api/system/param.json', { body: { name, value } });
}
