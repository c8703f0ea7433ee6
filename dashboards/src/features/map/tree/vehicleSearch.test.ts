import { describe, expect, it } from 'vitest';
import type { CarRow } from '../model/types';
import { buildTree } from './treeModel';
import { matchCar, matchLocally, mergeMatches } from './vehicleSearch';

const car = (carId: number, extra: Partial<CarRow> = {}): CarRow => ({
  carId,
  enterpriseId: 1,
  groupId: null,
  plateNumber: `京A1000${carId}`,
  plateColor: 1,
  vin: null,
  masterDeviceId: 100 + carId,
  masterDeviceSn: null,
  masterDevicePhone: null,
  masterDeviceBizState: null,
  masterDeviceState: null,
  lastOnlineTime: null,
  hasVideo: 0,
  hasPhoto: 0,
  hasMicrophone: 0,
  driverId: null,
  driverName: null,
  ...extra,
});

const cars = [
  car(1, { vin: 'LSVAB12345', masterDevicePhone: '013912345601', masterDeviceSn: 'T7788', driverName: '王师傅' }),
  car(2, { vin: 'LSVCD00001', masterDevicePhone: '013900000002', driverName: '李四' }),
];
const model = buildTree([{ id: 1, shortName: 'E' }], [], cars);

describe('the live map search', () => {
  it('finds a vehicle by plate, VIN, SIM, terminal id and driver and names the field', () => {
    expect(matchCar(cars[0], 'a10001')).toEqual({ field: 'plateNumber', value: '京A10001' });
    expect(matchCar(cars[0], 'ab123')).toEqual({ field: 'vin', value: 'LSVAB12345' });
    expect(matchCar(cars[0], '12345601')).toEqual({ field: 'sim', value: '013912345601' });
    expect(matchCar(cars[0], 't77')).toEqual({ field: 'terminalId', value: 'T7788' });
    expect(matchCar(cars[0], '王')).toEqual({ field: 'driverName', value: '王师傅' });
    expect(matchCar(cars[1], 't77')).toBeNull();
  });

  it('matches every loaded vehicle by key, ignoring case and spaces around the text', () => {
    const found = matchLocally(model, '  lsv ');
    expect([...found.keys()].sort()).toEqual(['c_1_101', 'c_2_102']);
    expect(matchLocally(model, '   ').size).toBe(0);
  });

  it('adds the server matches the rows cannot make (a SIM card ICCID) without replacing local ones', () => {
    const local = matchLocally(model, '王');
    const merged = mergeMatches(model, local, [
      { carId: 1, matchedField: 'plateNumber', matchedValue: 'x' },
      { carId: 2, matchedField: 'sim', matchedValue: '89860000111' },
      { carId: 99, matchedField: 'sim', matchedValue: 'not in the tree' },
      { carId: 2, matchedField: 'bogus', matchedValue: 'y' },
    ]);
    expect(merged.get('c_1_101')).toEqual({ field: 'driverName', value: '王师傅' });
    expect(merged.get('c_2_102')).toEqual({ field: 'sim', value: '89860000111' });
    expect(merged.size).toBe(2);
  });
});
