// @vitest-environment jsdom
import i18n from 'i18next';
import { afterEach, describe, expect, test } from 'vitest';
import '../../../i18n';
import { enumLabel } from '../../list/model';
import { attach, channelNames, detach, makeMaster } from '../carDevices';

const t = i18n.t.bind(i18n);
afterEach(async () => {
  await i18n.changeLanguage('zh-CN');
});

describe("a car's devices", () => {
  test('the first device fitted becomes the master; later ones do not', () => {
    const one = attach({ deviceIds: [], master: null }, 7);
    expect(one).toEqual({ deviceIds: [7], master: 7 });
    expect(attach(one, 9)).toEqual({ deviceIds: [7, 9], master: 7 });
    expect(attach(one, 7)).toBe(one);
  });

  test('removing the master hands it to the first remaining device, or to nobody', () => {
    expect(detach({ deviceIds: [7, 9, 11], master: 7 }, 7)).toEqual({ deviceIds: [9, 11], master: 9 });
    expect(detach({ deviceIds: [7, 9], master: 7 }, 9)).toEqual({ deviceIds: [7], master: 7 });
    expect(detach({ deviceIds: [7], master: 7 }, 7)).toEqual({ deviceIds: [], master: null });
  });

  test('only a fitted device can be the master', () => {
    expect(makeMaster({ deviceIds: [7, 9], master: 7 }, 9)).toEqual({ deviceIds: [7, 9], master: 9 });
    expect(makeMaster({ deviceIds: [7], master: 7 }, 9)).toEqual({ deviceIds: [7], master: 7 });
  });
});

describe('labels of platform-spec §9 enumerations in three languages', () => {
  test('channels', async () => {
    expect(channelNames(t, '1,2,33')).toBe('前方, 驾驶员, 音频33');
    expect(channelNames(t, '')).toBe('');
    await i18n.changeLanguage('en-US');
    expect(channelNames(t, '1,9,99')).toBe('Front, Right, 99');
  });

  test('plate colour, grade, energy type and device state', async () => {
    const label = (screen: string, field: string, value: number) => enumLabel(t, `fleet:${screen}`, { name: field }, value);
    expect([label('car', 'plateColor', 2), label('car', 'grade', 1), label('car', 'type', 2), label('device', 'state', 5)])
      .toEqual(['黄色', 'A级', '新能源', '已停用']);
    await i18n.changeLanguage('zh-HK');
    expect(label('car', 'plateColor', 5)).toBe('農黃色');
    await i18n.changeLanguage('en-US');
    expect([label('car', 'plateColor', 8), label('device', 'state', 3), label('car', 'grade', 9)])
      .toEqual(['Other', 'Online', '9']);
  });
});
