import { describe, expect, it } from 'vitest';
import zh from '../../../locales/zh-CN/command.json';
import { ALARM_TABS, paramById } from '../paramCatalogue';
import { alarmParamsOf, alarmTab, alarmValuesFrom, capturePayload, textPayload } from '../payloads';
import { changedParams, groupedRows, guardedParams } from '../terminalParamsModel';
import { checkAlarmField, checkContent, checkParamValue } from '../validation';

const zhText = (key: string) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], zh) as string;
const field = (name: string) => ALARM_TABS.flatMap((t) => t.fields).find((f) => f.name === name)!;

describe('text message validation (console-spec §5)', () => {
  it('requires content with the spec message and allows at most 150 characters', () => {
    expect(zhText(checkContent('')!)).toBe('下发内容不能为空');
    expect(zhText(checkContent('   ')!)).toBe('下发内容不能为空');
    expect(checkContent('字'.repeat(150))).toBeNull();
    expect(checkContent('字'.repeat(151))).toBe('text.tooLong');
    expect(checkContent('请减速 🚧')).toBe('text.notGbk');
  });

  it('sends the TTS broadcast read out only, and the text message shown on the display by default', () => {
    expect(textPayload({ content: ' 前方限速 ' }, 'tts')).toEqual({ content: '前方限速', tts: true, display: false, emergency: false, textType: 1 });
    expect(textPayload({ content: '到站', display: true, tts: false, emergency: true }, 'text')).toEqual({
      content: '到站', tts: false, display: true, emergency: true, textType: 1,
    });
  });

  it('captures with the spec payload on the chosen channel', () => {
    expect(capturePayload(3)).toMatchObject({
      channelId: 3, commandType: 2, totalPicture: 1, executionTime: 0, saveFlag: 0, resolution: 2, quality: 1,
      luminance: 127, saturation: 1, chromaticity: 1,
    });
  });
});

describe('alarm configuration (console-spec §5 table)', () => {
  it('gives each field its own required message, as the spec writes it', () => {
    const messages = ALARM_TABS.flatMap((tab) => tab.fields).map((f) => zhText(checkAlarmField(f, '')!));
    expect(messages).toEqual([
      '最高速度不能为空', '持续时间不能为空', '连续驾驶时间门限不能为空', '当天累计驾驶时间门限不能为空', '最小休息时间不能为空',
      '疲劳驾驶预警差值', '最长停车时间不能为空', '非法位移阈值不能为空', '超时报警预警差值不能为空',
    ]);
  });

  it('keeps values within the spec ranges', () => {
    expect(checkAlarmField(field('maxSpeed'), 1)).toBeNull();
    expect(checkAlarmField(field('maxSpeed'), 180)).toBeNull();
    expect(checkAlarmField(field('maxSpeed'), 181)).toBe('alarm.range');
    expect(checkAlarmField(field('maxSpeed'), 0)).toBe('alarm.range');
    expect(checkAlarmField(field('maxSpeed'), 60.5)).toBe('alarm.range');
    expect(checkAlarmField(field('maxParking'), 100000)).toBeNull();
    expect(checkAlarmField(field('continuousDriving'), 181)).toBe('alarm.range');
  });

  it('takes the spec\'s 1-100000 for illegal displacement and the two warning differences, in the form\'s unit', () => {
    for (const name of ['illegalDisplacement', 'overspeedWarning', 'fatigueWarning']) {
      expect(checkAlarmField(field(name), 100000)).toBeNull(); // past the WORD: the server names the real maximum
      expect(checkAlarmField(field(name), 100001)).toBe('alarm.range');
      expect(checkAlarmField(field(name), 0)).toBe('alarm.range');
    }
    // 005B is sent in 1/10 km/h: the spec's 100000 km/h goes out as 1000000, for the server to refuse.
    expect(Object.fromEntries(alarmParamsOf(alarmTab(6), { overspeedWarning: 100000 }))).toEqual({ 91: 1000000 });
  });

  it('has the tabs of the spec with their keys', () => {
    expect(ALARM_TABS.map((t) => t.key)).toEqual([1, 2, 4, 5, 6]);
    expect(alarmTab('5').fields.map((f) => f.paramId)).toEqual([0x0031]);
  });

  it('reads the current values from the parameters map and writes a tab as 8103 numbers', () => {
    const values = alarmValuesFrom({ '0055': '00000078', '0056': '0000000A', '005B': '0032', '0031': '00C8' });
    expect(values).toEqual({ maxSpeed: 120, overspeedDuration: 10, overspeedWarning: 5, illegalDisplacement: 200 });
    expect(Object.fromEntries(alarmParamsOf(alarmTab(1), { maxSpeed: 90, overspeedDuration: 15 }))).toEqual({ 85: 90, 86: 15 });
    // 005B is in 1/10 km/h on the wire: 8 km/h is 80.
    expect(Object.fromEntries(alarmParamsOf(alarmTab(6), { overspeedWarning: 8 }))).toEqual({ 91: 80 });
  });
});

describe('terminal parameters screen model', () => {
  it('groups known parameters with decoded values and keeps unknown ids raw', () => {
    const groups = groupedRows({ '0001': '0000001E', '0083': 'BEA9413132333435', f364: '0102' });
    const communication = groups.find((g) => g.group === 'communication')!;
    expect(communication.rows.find((r) => r.hex === '0001')?.value).toBe(30);
    expect(groups.find((g) => g.group === 'vehicle')!.rows.find((r) => r.hex === '0083')?.value).toBe('京A12345');
    expect(groups.at(-1)).toEqual({ group: 'other', rows: [{ hex: 'F364', def: null, raw: '0102', value: '0102' }] });
  });

  it('writes only the values that changed, and refuses an out-of-range one', () => {
    const current = { '0001': '0000001E', '0029': '0000000A' };
    const change = changedParams({ p0001: 30, p0029: 5, p0084: 2 }, current);
    expect(change.ok && Object.fromEntries(change.params)).toEqual({ 41: 5, 132: 2 });
    expect(changedParams({ p0084: 256 }, current)).toEqual({ ok: false, hex: '0084', problem: 'params.range' });
    // the server's ranges: a heartbeat of 0 s or a report every 136 years is refused before sending
    expect(changedParams({ p0001: 0 }, current)).toEqual({ ok: false, hex: '0001', problem: 'params.range' });
    expect(changedParams({ p0029: 4294967295 }, current)).toEqual({ ok: false, hex: '0029', problem: 'params.range' });
  });

  it('names the link and identity parameters that need a confirmation', () => {
    const change = changedParams({ p0013: '203.0.113.9', p0055: 90, p0082: 110 }, {});
    expect(change.ok && guardedParams(change.params)).toEqual([0x0013, 0x0082]);
    expect(change.ok && change.params.get(0x0013)).toBe('203.0.113.9');
    expect(checkParamValue(paramById.get(0x0013)!, 'a'.repeat(65))).toBe('params.tooLong');
    expect(checkParamValue(paramById.get(0x0029)!, 2.5)).toBe('params.notInteger');
  });
});
