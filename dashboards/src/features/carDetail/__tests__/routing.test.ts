import { describe, expect, it } from 'vitest';
import { carDetailRouteName, carDetailUrl, routeNameOfPath } from '../routing';

describe('car detail routing (platform-spec §2 car-detail)', () => {
  it.each([
    ['gb32960', 'nevCarDetail'],
    ['gb17691', 'g6CarDetail'],
    ['hj1239', 'hj1239CarDetail'],
    ['db4403t363', 'db4403t363CarDetail'],
    ['GB32960', 'nevCarDetail'],
    ['jt808', 'carDetail'],
    ['', 'carDetail'],
    [null, 'carDetail'],
    [undefined, 'carDetail'],
    ['toString', 'carDetail'],
  ])('protocol %s goes to %s', (protocol, name) => {
    expect(carDetailRouteName(protocol)).toBe(name);
  });

  it('always carries carId, and the device when known', () => {
    expect(carDetailUrl(7, 12, 'gb32960')).toBe('/list/carDetail/gb32960?carId=7&deviceId=12');
    expect(carDetailUrl(7, null, 'jt808')).toBe('/list/carDetail?carId=7');
    expect(carDetailUrl('7')).toBe('/list/carDetail?carId=7');
  });

  it('maps each path back to its route name', () => {
    expect(routeNameOfPath('/list/carDetail')).toBe('carDetail');
    expect(routeNameOfPath('/list/carDetail/hj1239/')).toBe('hj1239CarDetail');
    expect(routeNameOfPath('/list/carDetail/db4403t363')).toBe('db4403t363CarDetail');
    expect(routeNameOfPath('/list/car')).toBeNull();
  });
});
