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
