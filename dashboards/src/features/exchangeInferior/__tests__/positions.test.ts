import { describe, expect, it } from 'vitest';
import { toPosition } from '../positions';

describe('toPosition', () => {
  it('places an exchange vehicle at its last fix with its heading and speed', () => {
    const position = toPosition({ id: 7, plate: '粤B12345', lat: 22.52, lng: 114.05, directionDeg: 271, speedKmh: 42.5,
      lastFixAt: '2026-12-01T02:02:00Z', alarm: 0 });
    expect(position).toMatchObject({ deviceId: 7, lat: 22.52, lng: 114.05, direction: 271, speed: 42.5,
      time: '2026-12-01T02:02:00Z', timeMs: Date.parse('2026-12-01T02:02:00Z') });
  });

  it('leaves out a vehicle registered but never positioned', () => {
    expect(toPosition({ id: 8, plate: '粤B00001', lat: null, lng: null, lastFixAt: null })).toBeNull();
  });
});
