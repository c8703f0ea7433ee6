/**
 * Everything a cockpit shows, kept current: the fleet's figures (online, alarming, today's mileage and its
 * top vehicles, today's alarms, unhandled) from the server, the one definition the dashboard and the map
 * read too, every FIGURES_REFRESH_MS (the dashboard's cadence) and 1 s after alarm pushes or a handling here
 * (features/alarm/alarmEvents.ts `keepAlarmFiguresFresh`); the vehicles' positions on the map live through the one socket
 * owner (the bulk last-positions read resyncs the hub, then pushes keep it); the vehicles alarmed today every
 * minute; the past 30 days from the report rollups every 10 minutes with today's figures appended.
 */
import dayjs from 'dayjs';
import { useEffect, useMemo, useState } from 'react';
import { fetchFleetSnapshot } from '../map/model/api';
import { useLiveHub, useLiveStatus } from '../../live/useLiveHub';
import { fetchAlarmCounts, type AlarmCounts } from '../alarm/api';
import { keepAlarmFiguresFresh } from '../alarm/alarmEvents';
import type { ListRecord } from '../list/types';
import { dayKey } from '../list/model';
import { daysBetween, groupRows, perDay, topN } from '../report/aggregate';
import type { Ranked } from '../report/charts/options';
import { FIGURES_REFRESH_MS, fetchFleetFigures, type FleetFigures as ServerFigures } from '../figures/api';
import { fetchAlarmDays, fetchCarDays, fetchCarsOfType, fetchEnterpriseDays, fetchNevStates, fetchOdometers, type CockpitCar } from './api';
import { boardFigures, nevFigures, withToday, type FleetFigures, type NevFigures } from './model';

export type CockpitVariant = 'fleet' | 'nev';

/** Vehicle type of the new-energy cockpit (platform-spec §9: 2 new-energy). */
export const NEV_TYPE = 2;
export const TREND_DAYS = 30;
const ROLLUP_REFRESH_MS = 10 * 60_000;
const SNAPSHOT_REFRESH_MS = 5 * 60_000;

export interface MapPoint {
  lng: number;
  lat: number;
  bizState: number;
  plate: string;
  alarm: boolean;
}

export interface CockpitData {
  ready: boolean;
  figures: FleetFigures;
  points: MapPoint[];
  todayKm: number;
  topToday: Ranked[];
  /** Today's alarms and the unhandled ones (null: not the caller's to read, or the NEV board). */
  alarmsToday: number | null;
  unhandled: number | null;
  trend: { days: number[]; km: number[]; alarms: number[] | null };
  topEnterprises: Ranked[];
  safety: Ranked[];
  alarms: AlarmCounts | null;
  /** The new-energy board's charging and SOC figures (null: the fleet board, or not read yet). */
  nev: NevFigures | null;
  liveStatus: string;
}

interface Rollups {
  days: number[];
  enterpriseDays: ListRecord[];
  carDays: ListRecord[];
  alarmDays: ListRecord[];
  plates: Map<number, string>;
}

/** The day keys of the last `n` days ending today. */
export function trendDays(n: number, now = dayjs()): number[] {
  return daysBetween(dayKey(now.subtract(n - 1, 'day')), dayKey(now));
}

export function useCockpit(variant: CockpitVariant): CockpitData {
  const hub = useLiveHub();
  const [cars, setCars] = useState<CockpitCar[] | null>(variant === 'fleet' ? null : []);
  const [plates, setPlates] = useState<Map<number, string>>(new Map());
  const [devices, setDevices] = useState<number[]>([]);
  const [synced, setSynced] = useState(false);
  const [tick, setTick] = useState(0);
  const [rollups, setRollups] = useState<Rollups | null>(null);
  const [alarms, setAlarms] = useState<AlarmCounts | null>(null);
  const [server, setServer] = useState<ServerFigures | null>(null);
  const [nevRows, setNevRows] = useState<ListRecord[] | null>(null);

  // The vehicles in scope (the NEV cockpit: those of type 2) and the hub resynced from the bulk read.
  useEffect(() => {
    if (!hub) return undefined;
    const controller = new AbortController();
    const load = async () => {
      const [snapshot, ofType] = await Promise.all([
        fetchFleetSnapshot(controller.signal),
        variant === 'nev' ? fetchCarsOfType(NEV_TYPE, controller.signal) : Promise.resolve(null),
      ]);
      if (controller.signal.aborted || !snapshot) return;
      hub.resync(snapshot.states, snapshot.positions);
      const scoped = ofType
        ? ofType.map((c) => c.deviceId).filter((d): d is number => d !== null)
        : snapshot.states.map(([deviceId]) => deviceId);
      setDevices(scoped);
      setCars(ofType);
      setPlates(new Map(ofType ? ofType.map((c) => [c.carId, c.plate]) : []));
      setSynced(true);
    };
    void load();
    const timer = setInterval(() => void load(), SNAPSHOT_REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [hub, variant]);

  // Live changes (states are already throttled by the hub; positions are coalesced): recount.
  useEffect(() => {
    if (!hub) return undefined;
    let pending: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      pending ??= setTimeout(() => {
        pending = null;
        setTick((n) => n + 1);
      }, 1000);
    };
    const stopStates = hub.states.subscribe(soon);
    const stopPositions = hub.positions.subscribe(soon);
    return () => {
      if (pending !== null) clearTimeout(pending);
      stopStates();
      stopPositions();
    };
  }, [hub]);

  // Past days from the rollups (and yesterday's odometers for today's mileage).
  useEffect(() => {
    if (cars === null && variant === 'nev') return undefined;
    const controller = new AbortController();
    const load = async () => {
      const days = trendDays(TREND_DAYS);
      const first = days[0];
      const yesterday = days[days.length - 2];
      const carIds = cars ? cars.map((c) => c.carId) : null;
      const [enterpriseDays, carDays, alarmDays, { plates: dayPlates }] = await Promise.all([
        variant === 'fleet' ? fetchEnterpriseDays(first, yesterday, controller.signal) : Promise.resolve([]),
        carIds ? fetchCarDays(first, yesterday, carIds, controller.signal) : Promise.resolve([]),
        carIds && carIds.length === 0 ? Promise.resolve([]) : fetchAlarmDays(first, yesterday, carIds, controller.signal),
        fetchOdometers(yesterday, controller.signal),
      ]);
      if (!controller.signal.aborted) setRollups({ days, enterpriseDays, carDays, alarmDays, plates: dayPlates });
    };
    void load();
    const timer = setInterval(() => void load(), ROLLUP_REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [cars, variant]);

  // The fleet's figures (the NEV board: its vehicle type's), at the dashboard's cadence and after alarm pushes.
  useEffect(() => {
    const controller = new AbortController();
    const stop = keepAlarmFiguresFresh(() => void fetchFleetFigures(controller.signal, variant === 'nev' ? NEV_TYPE : undefined)
      .then((next) => {
        if (!controller.signal.aborted && next) setServer(next);
      }), hub, FIGURES_REFRESH_MS);
    return () => {
      stop();
      controller.abort();
    };
  }, [hub, variant]);

  // The new-energy board's charging and SOC figures from the vehicles' latest GB/T 32960 states, at the
  // figures' cadence (the states move with every real-time frame, so a reload is as live as a push).
  useEffect(() => {
    if (variant !== 'nev') return undefined;
    const controller = new AbortController();
    const load = () => fetchNevStates(controller.signal).then((rows) => {
      if (!controller.signal.aborted) setNevRows(rows);
    });
    void load();
    const timer = setInterval(() => void load(), FIGURES_REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [variant]);

  // The vehicles alarmed today and the alarms by type (the whole tree): every minute and after alarm pushes.
  useEffect(() => {
    if (variant !== 'fleet') return undefined;
    const controller = new AbortController();
    const stop = keepAlarmFiguresFresh(() => void fetchAlarmCounts('today', controller.signal).then((counts) => {
      if (!controller.signal.aborted) setAlarms(counts);
    }), hub);
    return () => {
      stop();
      controller.abort();
    };
  }, [hub, variant]);

  const status = useLiveStatus(hub);
  return useMemo(() => {
    void tick; // recount on live changes
    const inScope = new Set(devices);
    const plateOf = (carId: number) => plates.get(carId) || rollups?.plates.get(carId) || String(carId);
    const positions = hub ? [...hub.positions.all()].filter((p) => inScope.has(p.deviceId)) : [];
    const figures = boardFigures(server);
    const points: MapPoint[] = positions.map((p) => {
      const state = hub?.states.get(p.deviceId);
      return { lng: p.lng, lat: p.lat, bizState: state?.online ? state.bizState : 0, plate: plateOf(p.carId ?? 0), alarm: p.alarm !== 0 };
    });
    const todayTotal = server?.todayMileageKm ?? 0;
    const topToday = topN((server?.topToday ?? []).map((c) => ({ name: c.plateNumber || plateOf(c.carId), value: c.km })), 10);
    const days = rollups?.days ?? trendDays(TREND_DAYS);
    const past = variant === 'fleet'
      ? perDay(rollups?.enterpriseDays ?? [], days, 'mileageKm')
      : perDay(rollups?.carDays ?? [], days, 'mileageKm');
    const km = withToday(days, past.map((v) => Math.round(v)), Math.round(todayTotal)).values;
    const alarmsToday = server?.todayAlarms ?? null;
    const alarmTrend = variant === 'fleet'
      ? withToday(days, perDay(rollups?.enterpriseDays ?? [], days, 'alarms'), alarmsToday ?? 0).values
      : null;
    const topEnterprises = topN(groupRows(rollups?.enterpriseDays ?? [], 'enterpriseId', ['mileageKm'])
      .map((g) => ({ name: String(g.first.enterpriseName ?? g.key), value: Math.round(g.sums.mileageKm) })).filter((e) => e.value > 0), 8);
    const safety = topN(groupRows(rollups?.alarmDays ?? [], 'carId', ['alarmTotal'])
      .map((g) => ({ name: String(g.first.plateNumber ?? g.key), value: g.sums.alarmTotal })), 10);
    return {
      ready: synced && server !== null, figures, points, todayKm: todayTotal, topToday, alarmsToday,
      unhandled: server?.unhandled ?? null, trend: { days, km, alarms: alarmTrend }, topEnterprises, safety, alarms,
      nev: variant === 'nev' && nevRows && cars ? nevFigures(nevRows, new Set(cars.map((c) => c.carId))) : null,
      liveStatus: status,
    };
  }, [tick, devices, hub, plates, rollups, variant, alarms, synced, status, server, nevRows, cars]);
}
