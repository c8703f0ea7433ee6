import { describe, expect, it } from 'vitest';
import en from '../../../locales/en-US/command.json';
import zh from '../../../locales/zh-CN/command.json';
import hk from '../../../locales/zh-HK/command.json';
import { BLOCKS, bitsText, blockPayload, checkBlockValue, decodeBlock, parseBits } from '../activeSafetyBlocks';

// The same hand-written bytes as tests/unit/protocols/test_jt808_active_safety_params.py: the console's
// mirror must read the server's layout at the same offsets.
const ADAS_SMALLCHI = '052D030002000122231D26000000040000000A1E09152B08180F0E14291011122A16170D13280C0B1C192C1B1A2425270607202101020304';
const DSM_DEFAULTS = ['1E', '06', '00', '0E10', '00C8', '03', '02', '01', '01', '000001FF', '00000003', '00B4', '0078', '000000',
  '32050302', '32050302', '32050302', '32050302', '32050302', '00', '0000'].join('');

describe('T/JSATL12 active-safety blocks (the server declares them in active_safety_params.py)', () => {
  it('has the standard sizes: ADAS 56 bytes, DSM 49', () => {
    expect(BLOCKS.adas.size).toBe(56);
    expect(BLOCKS.dsm.size).toBe(49);
    expect(BLOCKS.adas.idHex).toBe('F364');
    expect(BLOCKS.dsm.idHex).toBe('F365');
  });

  it('reads every ADAS field at its offset', () => {
    const values = decodeBlock(BLOCKS.adas, ADAS_SMALLCHI)!;
    expect(values).toMatchObject({
      alarmSpeedThresholdKmh: 5, alarmVolume: 45, photoStrategy: 3, timedPhotoIntervalS: 2, distancePhotoIntervalM: 1,
      photoCount: 34, photoInterval100ms: 35, photoResolution: 29, videoResolution: 38, alarmEnable: 4, eventEnable: 10,
      reserved19: '1E', obstacleDistanceThreshold100ms: 9, obstacleSpeedThresholdKmh: 21, laneChangePeriodS: 15,
      laneChangeCount: 14, forwardCollisionTimeThreshold100ms: 13, forwardCollisionPhotoInterval100ms: 11,
      headwayDistanceThreshold100ms: 36, headwayPhotoInterval100ms: 7, roadSignPhotoCount: 32,
      roadSignPhotoInterval100ms: 33, reserved52: '01020304',
    });
  });

  it('reads the DSM defaults and refuses a block of another size', () => {
    expect(DSM_DEFAULTS).toHaveLength(98);
    expect(decodeBlock(BLOCKS.dsm, DSM_DEFAULTS)).toMatchObject({
      alarmSpeedThresholdKmh: 30, timedPhotoIntervalS: 3600, distancePhotoIntervalM: 200, alarmEnable: 0x1ff,
      smokingCheckIntervalS: 180, phoneCheckIntervalS: 120, reserved23: '000000', fatigueSpeedThresholdKmh: 50,
      abnormalDrivingPhotoInterval100ms: 2, driverIdTrigger: 0, reserved47: '0000',
    });
    expect(decodeBlock(BLOCKS.dsm, DSM_DEFAULTS.slice(0, 94))).toBeNull();
    expect(decodeBlock(BLOCKS.dsm, undefined)).toBeNull();
  });

  it('checks the standard ranges, and all ones as "leave unchanged"', () => {
    const field = (key: string) => BLOCKS.adas.fields.find((f) => f.key === key)!;
    expect(checkBlockValue(field('alarmSpeedThresholdKmh'), 60)).toBeNull();
    expect(checkBlockValue(field('alarmSpeedThresholdKmh'), 61)).toBe('range');
    expect(checkBlockValue(field('alarmSpeedThresholdKmh'), 255)).toBeNull();
    expect(checkBlockValue(field('forwardCollisionTimeThreshold100ms'), 9)).toBe('range');
    expect(checkBlockValue(field('timedPhotoIntervalS'), 1.5)).toBe('range');
    expect(checkBlockValue(BLOCKS.dsm.fields.find((f) => f.key === 'timedPhotoIntervalS')!, 59)).toBe('range');
  });

  it('sends the whole block with the edits applied, reserved bytes as read', () => {
    const read = decodeBlock(BLOCKS.dsm, DSM_DEFAULTS)!;
    const payload = blockPayload(BLOCKS.dsm, read, { fatigueVideoS: 10 });
    expect(Object.keys(payload)).toHaveLength(BLOCKS.dsm.fields.length);
    expect(payload).toMatchObject({ fatigueVideoS: 10, fatigueSpeedThresholdKmh: 50, reserved23: '000000' });
  });

  it('shows and parses bit masks as hex', () => {
    expect(bitsText(0x10fff)).toBe('0x00010FFF');
    expect(parseBits('0x3')).toBe(3);
    expect(parseBits('00010fff')).toBe(0x10fff);
    expect(parseBits('0x123456789')).toBeNull();
    expect(parseBits('zz')).toBeNull();
  });

  it('names every field, group and unit in the three languages', () => {
    for (const locale of [zh, hk, en]) {
      const texts = locale.activeSafety as unknown as Record<string, Record<string, string>>;
      for (const block of Object.values(BLOCKS)) {
        for (const f of block.fields.filter((x) => !x.reserved)) {
          expect(texts.fields[f.key], f.key).toBeTruthy();
          expect(texts.groups[f.group], f.group).toBeTruthy();
          if (f.unit) expect(texts.units[f.unit], f.unit).toBeTruthy();
        }
      }
    }
  });
});
