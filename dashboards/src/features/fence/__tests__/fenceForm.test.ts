import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { bodyOf, NEW_FENCE, problemsOf, shapesFor, valuesOf, type FenceFormValues } from '../fenceForm';

const POLYGON = { rings: [[[116.3, 39.9], [116.4, 39.9], [116.35, 39.95]]] as [number, number][][] };
const fence = (over: Partial<FenceFormValues>): FenceFormValues => ({ ...NEW_FENCE, name: 'Depot', ...over });
const keys = (values: FenceFormValues, geometry: Parameters<typeof problemsOf>[1] = POLYGON) => problemsOf(values, geometry).map((p) => p.key);

describe('problemsOf', () => {
  it('accepts a named platform polygon fence', () => {
    expect(keys(fence({}))).toEqual([]);
  });

  it('asks for a drawing before a save', () => {
    expect(keys(fence({}), null)).toContain('errors.noGeometry');
  });

  it('asks a district fence for a region picked, not a drawing', () => {
    expect(keys(fence({ shape: 'district' }), null)).toEqual(['errors.noDistrict']);
  });

  it('keeps routes for route fences and route fences for routes', () => {
    expect(keys(fence({ fenceType: 4 }))).toContain('errors.routeType');
    expect(keys(fence({ shape: 'route' }), { segments: [{ points: [[1, 1], [2, 2]], width: 20 }] })).toContain('errors.routeType');
  });

  it('refuses a district as a terminal fence (no area code on the wire)', () => {
    expect(keys(fence({ shape: 'district', businessType: 2 }), { districtId: 440305 })).toContain('errors.districtTerminal');
  });

  it('needs a speed limit for an overspeed fence or the speed limit attribute', () => {
    expect(keys(fence({ fenceType: 3 }))).toContain('errors.speedLimit');
    expect(keys(fence({ attributes: [1] }))).toContain('errors.speedLimit');
    expect(keys(fence({ attributes: [1], speedLimit: 30 }))).toEqual([]);
  });

  it('needs a stay limit for a stay-in-place fence', () => {
    expect(keys(fence({ fenceType: 1 }))).toContain('errors.stayLimit');
    expect(keys(fence({ fenceType: 1, stayLimit: 600 }))).toEqual([]);
  });

  it('refuses a window that ends before it starts', () => {
    const start = dayjs('2026-12-01T08:00:00Z');
    expect(keys(fence({ window: 'absolute', absolute: [start, start.subtract(1, 'hour')] }))).toContain('errors.window');
  });

  it('refuses a route segment without width or with min time above max time', () => {
    const route = fence({ fenceType: 4, shape: 'route' });
    expect(keys(route, { segments: [{ points: [[1, 1], [2, 2]], width: 0 }] })).toContain('errors.segment');
    expect(keys(route, { segments: [{ points: [[1, 1], [2, 2]], width: 30, minTime: 90, maxTime: 60 }] })).toContain('errors.segmentTime');
  });
});

describe('bodyOf / valuesOf', () => {
  it('sends sorted attribute numbers and nulls for the window not chosen', () => {
    const body = bodyOf(fence({ attributes: [5, 3, 1], speedLimit: 40 }), POLYGON);
    expect(body).toMatchObject({ attributes: [1, 3, 5], startTime: null, endTime: null, dailyStart: null, dailyEnd: null, speedLimit: 40 });
  });

  it('sends a daily window as Beijing-clock times and an absolute one as instants', () => {
    const daily = bodyOf(fence({ window: 'daily', daily: [dayjs('2026-01-01 07:30:00'), dayjs('2026-01-01 09:00:00')] }), POLYGON);
    expect(daily).toMatchObject({ dailyStart: '07:30:00', dailyEnd: '09:00:00', startTime: null });
    const absolute = bodyOf(fence({ window: 'absolute', absolute: [dayjs('2026-12-01T00:00:00Z'), dayjs('2026-12-02T00:00:00Z')] }), POLYGON);
    expect(absolute).toMatchObject({ startTime: '2026-12-01T00:00:00.000Z', endTime: '2026-12-02T00:00:00.000Z', dailyStart: null });
  });

  it('drops a stay limit from a fence that is not stay-in-place', () => {
    expect(bodyOf(fence({ stayLimit: 60 }), POLYGON).stayLimit).toBeNull();
  });

  it('reads a stored fence back into the same form values', () => {
    const record = { name: 'School', fenceType: 3, businessType: 2, shape: 'circle', attributes: [1, 3], speedLimit: 30,
      dailyStart: '07:00:00', dailyEnd: '17:30:00', startTime: null, endTime: null, remark: '' };
    const values = valuesOf(record);
    expect(values).toMatchObject({ fenceType: 3, businessType: 2, shape: 'circle', attributes: [1, 3], window: 'daily', speedLimit: 30 });
    expect(bodyOf(values, { center: [116.3, 39.9], radius: 200 })).toMatchObject({ dailyStart: '07:00:00', dailyEnd: '17:30:00' });
  });

  it('offers only a route to a route fence and every area to the others', () => {
    expect(shapesFor(4)).toEqual(['route']);
    expect(shapesFor(2)).toEqual(['circle', 'rectangle', 'polygon', 'district']);
  });
});
