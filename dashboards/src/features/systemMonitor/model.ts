/** `GET /api/system/monitor.json` (api/monitor.py): each section available, or not with the error. */
import { http } from '../../api/client';

export const REFRESH_MS = 10_000;

interface Section {
  available: boolean;
  /** A platform-wide section a subsidiary's administrator may not see (nothing was read). */
  restricted?: boolean;
  error?: string;
}

export interface GatewaySection extends Section {
  online?: number;
  registered?: number;
  lastOnlineTime?: string | null;
}

export interface KafkaGroupRow {
  group: string;
  topic: string | null;
  partitions: number;
  committedOffset: number;
  endOffset: number;
  lag: number;
}

export interface KafkaSection extends Section {
  bootstrap?: string;
  topics?: { topic: string; partitions: number; endOffset: number }[];
  groups?: KafkaGroupRow[];
}

export interface DatabaseSection extends Section {
  name?: string;
  sizeBytes?: number;
  connections?: number;
  version?: string;
  tables?: { name: string; sizeBytes: number; estimatedRows: number }[];
}

export interface ThroughputSection extends Section {
  windowMinutes?: number;
  positions?: number;
  positionsPerMinute?: number;
  lastReceivedAt?: string | null;
}

export interface MonitorSnapshot {
  at: string;
  gateway: GatewaySection;
  kafka: KafkaSection;
  database: DatabaseSection;
  throughput: ThroughputSection;
}

export async function fetchMonitor(signal?: AbortSignal): Promise<MonitorSnapshot | null> {
  const reply = await http.get<MonitorSnapshot | null>('/api/system/monitor.json', { signal, quiet: true });
  return reply.code === 0 ? reply.data : null;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}
