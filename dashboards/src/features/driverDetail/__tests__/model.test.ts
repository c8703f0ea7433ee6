import { describe, expect, it } from 'vitest';
import { driverDetailHref, validity, validityColor } from '../model';

describe('validity', () => {
  it('is expired once the date is past', () => {
    expect(validity(-1, 30)).toBe('expired');
    expect(validity(-400, 30)).toBe('expired');
  });
  it('warns on the day itself and inside the notice window, its last day included', () => {
    expect(validity(0, 30)).toBe('expiresToday');
    expect(validity(1, 30)).toBe('expiring');
    expect(validity(30, 30)).toBe('expiring');
  });
  it('is valid beyond the window, and follows the window setting', () => {
    expect(validity(31, 30)).toBe('valid');
    expect(validity(31, 60)).toBe('expiring');
    expect(validity(1, 0)).toBe('valid');
  });
  it('is unknown without a date', () => {
    expect(validity(null, 30)).toBe('unknown');
    expect(validity(undefined, 30)).toBe('unknown');
    expect(validity(Number.NaN, 30)).toBe('unknown');
  });
  it('colours the warnings', () => {
    expect(validityColor('expired')).toBe('red');
    expect(validityColor('expiring')).toBe('orange');
    expect(validityColor('expiresToday')).toBe('orange');
    expect(validityColor('valid')).toBe('green');
    expect(validityColor('unknown')).toBeUndefined();
  });
});

describe('driverDetailHref', () => {
  it('links the driver by id', () => {
    expect(driverDetailHref(42)).toBe('/user/driver/detail?id=42');
    expect(driverDetailHref('a&b')).toBe('/user/driver/detail?id=a%26b');
  });
});
