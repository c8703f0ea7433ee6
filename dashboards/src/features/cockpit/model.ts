/**
 * The cockpits' figures, pure: the fleet's states now and today's figures as the server defines them for
 * every screen (GET /api/fleet/figures.json), the 30-day trends with today appended, the board's scale on
 * any screen.
 */
import type { FleetFigures as ServerFigures } from '../figures/api';

/** The board is laid out for a 1920 × 1080 wall and scaled to the screen it is on. */
export const BOARD_WIDTH = 1920;
export const BOARD_HEIGHT = 1080;

/** How much the board is scaled and where it starts so that it fills the screen, centred, without cropping. */
export function boardScale(width: number, height: number): { scale: number; left: number; top: number } {
  const scale = Math.max(0.1, Math.min(width / BOARD_WIDTH, height / BOARD_HEIGHT));
  return { scale, left: Math.max(0, (width - BOARD_WIDTH * scale) / 2), top: Math.max(0, (height - BOARD_HEIGHT * scale) / 2) };
}

export interface FleetFigures {
  total: number;
  online: number;
  driving: number;
  parked: number;
  engineOff: number;
  offline: number;
  /** Online vehicles whose last position carries an alarm bit now. */
  alarming: number;
}

/** The board's figures from the server's (features/figures: one definition for every screen). */
export function boardFigures(f: ServerFigures | null): FleetFigures {
  if (!f) return { total: 0, online: 0, driving: 0, parked: 0, engineOff: 0, offline: 0, alarming: 0 };
  return { total: f.total, online: f.online, driving: f.running, parked: f.parking, engineOff: f.flameout, offline: f.offline, alarming: f.alarming };
}

/** A trend of past days (from the report rollups) with today's live value appended. */
export function withToday(days: readonly number[], past: readonly number[], today: number): { days: number[]; values: number[] } {
  return { days: [...days], values: [...past.slice(0, days.length - 1), today] };
}

export interface NevFigures {
  /** Vehicles charging now (platform-spec §4 charging state 1 parked or 2 driving charging). */
  charging: number;
  /** The mean state of charge (%) of the vehicles reporting one, rounded to a whole percent; null: none does. */
  soc: number | null;
}

/** The new-energy board's figures from the latest states (nevState rows) of its vehicles (`carIds`: those of type 2). */
export function nevFigures(rows: readonly Record<string, unknown>[], carIds: ReadonlySet<number>): NevFigures {
  const mine = rows.filter((r) => r.carId !== null && r.carId !== undefined && carIds.has(Number(r.carId)));
  const charging = mine.filter((r) => r.chargingState === 1 || r.chargingState === 2).length;
  const socs = mine.map((r) => r.socPct).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const soc = socs.length ? Math.round(socs.reduce((a, b) => a + b, 0) / socs.length) : null;
  return { charging, soc };
}
