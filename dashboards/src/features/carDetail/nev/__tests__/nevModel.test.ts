import { describe, expect, it } from 'vitest';
import { alarmKeysOf, cellLabels, cellsOf, chargingStateKey, faultCode, faultCodes, fixed, gearOf, generalLevels, isCharging, motorsOf, readingSeries } from '../nevModel';

describe('charging state (platform-spec §4)', () => {
  it('names 1-4 and nothing else', () => {
    expect([1, 2, 3, 4].map(chargingStateKey)).toEqual(['1', '2', '3', '4']);
    expect([0, 5, 254, null, 'abnormal', undefined].map(chargingStateKey)).toEqual(Array(6).fill('unknown'));
  });
  it('counts only parked and driving charging as charging', () => {
    expect([1, 2, 3, 4, null].map(isCharging)).toEqual([true, true, false, false, false]);
  });
});

describe('gear: GB/T 32960 table 10 as the spec\'s gear (platform-spec §9)', () => {
  it('maps park, reverse, neutral, drive and the numbered gears', () => {
    expect(gearOf(0x0f)?.code).toBe(1);
    expect(gearOf(0x0d)?.code).toBe(2);
    expect(gearOf(0x00)?.code).toBe(3);
    expect(gearOf(0x0e)).toEqual({ code: 4, number: null, braking: false, driving: false });
    expect(gearOf(0x03)).toEqual({ code: 4, number: 3, braking: false, driving: false });
  });
  it('reads the braking and driving force bits beside the gear', () => {
    expect(gearOf(0x2e)).toEqual({ code: 4, number: null, braking: false, driving: true });
    expect(gearOf(0x1f)).toEqual({ code: 1, number: null, braking: true, driving: false });
  });
  it('says abnormal / invalid for 0xFE / 0xFF, unknown for the reserved codes, nothing for no reading', () => {
    expect(gearOf(254)?.code).toBe(254);
    expect(gearOf(255)?.code).toBe(255);
    expect(gearOf(0x09)?.code).toBe(0);
    expect(gearOf(null)).toBeNull();
    expect(gearOf(300)).toBeNull();
  });
});

describe('alarms', () => {
  it('names the general flags bits 0-27 (2016 and the 2025 edition) and leaves the reserved bits out', () => {
    expect(alarmKeysOf(0)).toEqual([]);
    expect(alarmKeysOf((1 << 0) | (1 << 11) | (1 << 18))).toEqual(['gb0', 'gb11', 'gb18']);
    expect(alarmKeysOf((1 << 23) | (1 << 27))).toEqual(['gb23', 'gb27']); // thermal event, stack temperature
    expect(alarmKeysOf((1 << 28) | (1 << 30))).toEqual([]);
    expect(alarmKeysOf(2 ** 31 + 2)).toEqual(['gb1']);
    expect(alarmKeysOf(null)).toEqual([]);
  });
  it('reads a 2025 general fault list as each alarm\'s own level: number in the high byte, level in the low', () => {
    const levels = generalLevels([(23 << 8) | 3, (1 << 8) | 1, 'abnormal', (40 << 8) | 2, (28 << 8) | 1]);
    expect([...levels.entries()]).toEqual([['gb23', 3], ['gb1', 1]]); // 28 and past: no named alarm
    expect(generalLevels([]).size).toBe(0);
    expect(generalLevels(null).size).toBe(0); // a 2016 terminal sends no list
  });
  it('prints fault codes as 8 hex digits and reads an abnormal list as none', () => {
    expect(faultCode(0xab12)).toBe('0x0000AB12');
    expect(faultCode(0xffffffff)).toBe('0xFFFFFFFF');
    expect(faultCodes([1, 'x', 2])).toEqual([1, 2]);
    expect(faultCodes('abnormal')).toEqual([]);
    expect(faultCodes(null)).toEqual([]);
  });
});

describe('cells', () => {
  it('numbers each pack\'s cells from its first cell, abnormal readings null', () => {
    const cells = cellsOf([{ number: 1, first_cell: 1, cell_voltages_v: [3.3, 'abnormal'] },
      { number: 2, first_cell: 5, cell_voltages_v: [3.31] }], 'cell_voltages_v');
    expect(cells).toEqual([{ pack: 1, index: 1, value: 3.3 }, { pack: 1, index: 2, value: null }, { pack: 2, index: 5, value: 3.31 }]);
    expect(cellLabels(cells)).toEqual(['1-1', '1-2', '2-5']);
  });
  it('labels one pack\'s cells by number alone; reads probes; ignores what is not a pack list', () => {
    const probes = cellsOf([{ number: 1, probe_temps_c: [25, 26, 27] }], 'probe_temps_c');
    expect(cellLabels(probes)).toEqual(['1', '2', '3']);
    expect(cellsOf('invalid', 'probe_temps_c')).toEqual([]);
    expect(cellsOf([null, { number: 1 }], 'cell_voltages_v')).toEqual([]);
  });
  it('keeps a 96-cell pack whole', () => {
    const packs = [{ number: 1, first_cell: 1, cell_voltages_v: Array.from({ length: 96 }, (_, i) => (3200 + i) / 1000) }];
    const cells = cellsOf(packs, 'cell_voltages_v');
    expect(cells).toHaveLength(96);
    expect(cells[95]).toEqual({ pack: 1, index: 96, value: 3.295 });
  });
});

describe('motors and readings', () => {
  it('reads the motors with their abnormal fields null', () => {
    expect(motorsOf([{ number: 1, status: 1, speed_rpm: 3000, torque_nm: 120.5, temp_c: 'abnormal', controller_temp_c: 40 }])).toEqual([
      { number: 1, status: 1, speedRpm: 3000, torqueNm: 120.5, tempC: null, controllerTempC: 40, controllerVoltageV: null, dcCurrentA: null }]);
    expect(motorsOf(null)).toEqual([]);
  });
  it('turns nevReading rows into chart series', () => {
    const series = readingSeries([{ collectedAt: 't1', socPct: 80, totalVoltageV: 350.1, totalCurrentA: -20 },
      { collectedAt: 't2', socPct: null, totalVoltageV: 351, totalCurrentA: 5 }], (iso) => `@${iso}`);
    expect(series).toEqual({ times: ['@t1', '@t2'], soc: [80, null], voltageV: [350.1, 351], currentA: [-20, 5] });
  });
  it('rounds to the resolution asked', () => {
    expect(fixed(351.50000762939453, 1)).toBe('351.5');
    expect(fixed(-20.299999237060547, 1)).toBe('-20.3');
    expect(fixed(3.2950000762, 3)).toBe('3.295');
    expect(fixed('invalid', 1)).toBeNull();
  });
});
