/**
 * The one way the console sends a command to a terminal (api/routes/commands.py), through the one API
 * client (whose handler shows any failure, e.g. the server's "终端不在线，不能发送指令！"):
 * `POST /api/command/{carId}/{code}.json` for a vehicle (its master device, or `deviceId` in the
 * payload) or `POST /api/device/{deviceId}/command/{code}.json` for a device.
 */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';
import { paramIdHex } from './paramValues';

export type CommandCode = '8103' | '8104' | '8105' | '8106' | '8201' | '8202' | '8203' | '8300' | '8500' | '8801' | '8802' | '8803';

export type CommandTarget = { carId: number; deviceId?: number } | { deviceId: number; carId?: undefined };

export interface CommandAccepted {
  id: number;
  carId: number | null;
  deviceId: number;
  msgId: number;
  state: string;
}

export type CommandStateName = 'created' | 'sent' | 'answered' | 'timed_out' | 'failed';

export interface CommandState {
  id: number;
  carId: number | null;
  deviceId: number;
  plateNumber: string | null;
  msgId: number;
  state: CommandStateName;
  result: number | null;
  reason: string | null;
  replyMsgId: number | null;
  reply?: unknown; // the answer as stored (a GB/T 32960 parameter query: {response, params: [{id, name, value}]})
  createdAt: number | null;
  sentAt: number | null;
  answeredAt: number | null;
  createdByName: string | null;
}

/** A command's route: by car or by terminal, of the caller's subtree (the server's default scope). */
export function commandUrl(target: CommandTarget, code: CommandCode): string {
  return target.carId !== undefined
    ? `/api/command/${target.carId}/${code}.json`
    : `/api/device/${target.deviceId}/command/${code}.json`;
}

/**
 * Sends one command. A vehicle target with a `deviceId` names that device of the car in the payload.
 * Resolves with the reply (code 0: accepted, data the new command) and never rejects.
 */
export function sendCommand(
  target: CommandTarget,
  code: CommandCode,
  payload: Record<string, unknown> = {},
): Promise<ApiReply<CommandAccepted | null>> {
  const body = target.carId !== undefined && target.deviceId !== undefined ? { ...payload, deviceId: target.deviceId } : payload;
  return http.post<CommandAccepted | null>(commandUrl(target, code), { body });
}

export async function fetchCommandState(id: number, signal?: AbortSignal): Promise<CommandState | null> {
  const reply = await http.get<CommandState | null>(`/api/command/${id}/state.json`, { signal, quiet: true });
  return reply.code === 0 ? reply.data : null;
}

/** Hex id -> hex value, from the terminal's last 0x0104 (`{}` before any). */
export async function fetchTerminalParams(deviceId: number, signal?: AbortSignal): Promise<Record<string, string> | null> {
  const reply = await http.get<Record<string, string> | null>(`/api/device/${deviceId}/terminal/params.json`, { signal });
  return reply.code === 0 ? (reply.data ?? {}) : null;
}

export interface WaitOptions {
  intervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
}

const FINAL: readonly CommandStateName[] = ['answered', 'timed_out', 'failed'];
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls the command's state until it is final (answered, timed out, failed); null on timeout or abort. */
export async function waitForCommand(id: number, options: WaitOptions = {}): Promise<CommandState | null> {
  const { intervalMs = 1000, timeoutMs = 40000, signal, sleep = defaultSleep } = options;
  for (let waited = 0; waited <= timeoutMs; waited += intervalMs) {
    if (signal?.aborted) return null;
    const state = await fetchCommandState(id, signal);
    if (state && FINAL.includes(state.state)) return state;
    await sleep(intervalMs);
  }
  return null;
}

export type ReadOutcome =
  | { kind: 'ok'; values: Record<string, string> }
  | { kind: 'refused' }
  | { kind: 'unanswered'; state: CommandState | null };

/**
 * Reads the terminal's parameters: 8104 (query all), or 8106 for `ids` (hex, e.g. ["F364"]), wait for
 * its 0x0104, then the stored map. `refused`: the server refused the command (its message is already shown).
 */
export async function readTerminalParams(
  target: CommandTarget, deviceId: number, options: WaitOptions & { ids?: string[] } = {},
): Promise<ReadOutcome> {
  const reply = options.ids ? await sendCommand(target, '8106', { ids: options.ids }) : await sendCommand(target, '8104');
  if (reply.code !== 0 || !reply.data) return { kind: 'refused' };
  const state = await waitForCommand(reply.data.id, options);
  if (!state || state.state !== 'answered' || (state.result !== null && state.result !== 0)) {
    return { kind: 'unanswered', state };
  }
  const values = await fetchTerminalParams(deviceId, options.signal);
  return values ? { kind: 'ok', values } : { kind: 'refused' };
}

/**
 * 8103: `paramList` of hex ids with typed values (numbers as JSON numbers, text as text; the server
 * refuses any other form). `confirm`: the operator confirmed guarded (link / identity) parameters.
 */
export function writeTerminalParams(target: CommandTarget, values: Map<number, number | string>, confirm = false) {
  const paramList = Array.from(values, ([id, value]) => ({ id: paramIdHex(id), value }));
  return sendCommand(target, '8103', confirm ? { paramList, confirm: true } : { paramList });
}

/** One device of a car, as the device selector and the abilities need it. */
export interface CarDevice {
  id: number;
  deviceName: string | null;
  deviceSn: string;
  phone: string;
  videoChannel: string | null;
  talkChannel?: string | null;
  hasVideo: number | null;
  hasPhoto: number | null;
  hasMicrophone: number | null;
}

export async function fetchCarDevices(carId: number, signal?: AbortSignal): Promise<CarDevice[]> {
  const reply = await http.post<{ list: CarDevice[] } | null>('/api/common/query/device.json', {
    params: {
      countable: false,
      pageNo: 1,
      pageSize: 100,
      select: 'id,deviceName,deviceSn,phone,videoChannel,talkChannel,hasVideo,hasPhoto,hasMicrophone',
    },
    body: { 'carId.eq': carId },
    signal,
  });
  return reply.code === 0 ? (reply.data?.list ?? []) : [];
}

/** Video channels of a device ("1,2,3" -> [1, 2, 3]); channel 1 when it names none. */
export function videoChannels(device: Pick<CarDevice, 'videoChannel'> | undefined): number[] {
  const channels = (device?.videoChannel ?? '')
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  return channels.length ? channels : [1];
}
