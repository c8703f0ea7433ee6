/**
 * The payloads the command dialogs send (contract C): pure functions of the form values, unit-tested.
 */
import { ALARM_TABS, paramById, type AlarmTab } from './paramCatalogue';
import { decodeNumber, paramIdHex } from './paramValues';

export type CommandAction = 'photo' | 'tts' | 'text' | 'alarmSetting';
export const COMMAND_ACTIONS: readonly CommandAction[] = ['photo', 'tts', 'text', 'alarmSetting'];

/** Console-spec §7 capture payload: one photo now, not saved on the terminal, 640x480, best quality. */
export const CAPTURE_DEFAULTS = {
  commandType: 2,
  totalPicture: 1,
  executionTime: 0,
  saveFlag: 0,
  resolution: 2,
  quality: 1,
  luminance: 127,
  contrast: 127,
  saturation: 1,
  chromaticity: 1,
} as const;

export function capturePayload(channelId: number) {
  return { ...CAPTURE_DEFAULTS, channelId };
}

/** The 8300 payload of the text dialog (mode text) or the TTS broadcast (mode tts: read out only). */
export function textPayload(values: { content: string; display?: boolean; tts?: boolean; emergency?: boolean }, mode: 'text' | 'tts') {
  return {
    content: values.content.trim(),
    tts: mode === 'tts' ? true : Boolean(values.tts),
    display: mode === 'tts' ? false : values.display !== false,
    emergency: Boolean(values.emergency),
    textType: 1,
  };
}

/** Form values (shown units) from a parameters map (hex id -> hex value); missing ids stay empty. */
export function alarmValuesFrom(params: Record<string, string>): Record<string, number> {
  const values: Record<string, number> = {};
  for (const field of ALARM_TABS.flatMap((tab) => tab.fields)) {
    const raw = params[paramIdHex(field.paramId)];
    const n = raw === undefined ? null : decodeNumber(raw);
    if (n !== null) values[field.name] = Math.round(n / (field.scale ?? 1));
  }
  return values;
}

/** The 8103 parameters of one tab's fields: the number sent for each (in wire units), by parameter id. */
export function alarmParamsOf(tab: AlarmTab, values: Record<string, unknown>): Map<number, number> {
  const params = new Map<number, number>();
  for (const field of tab.fields) {
    if (paramById.get(field.paramId)?.type === 'STRING') continue;
    params.set(field.paramId, Number(values[field.name]) * (field.scale ?? 1));
  }
  return params;
}

export function alarmTab(key: string | number): AlarmTab {
  return ALARM_TABS.find((tab) => String(tab.key) === String(key)) ?? ALARM_TABS[0];
}
