import { describe, expect, it } from 'vitest';
import { isVehicleOnline, stateOfDevice } from '../../live/vehicleStates';
import { toCounts } from './api';

/**
 * "Online" means the same on the dashboard, the tree and the popup. The dashboard's
 * counters come from the server's business-state report (warehouse/queries/console.py: device state
 * 3 and business state not 0, then split by business state); the tree and popup use the console's
 * one selector. The same devices must give the same online count.
 */
const DEVICES: [deviceState: number, bizState: number][] = [
  [3, 1], [3, 2], [3, 3], [3, 4], [3, 0], // online device, business state offline: not online
  [2, 1], // offline device with a stale business state: not online
  [2, 0], [0, 4], [5, 2],
];

function serverReport(devices: typeof DEVICES) {
  const online = (d: number, b: number) => d === 3 && b !== 0;
  const count = (biz: number) => devices.filter(([d, b]) => online(d, b) && b === biz).length;
  return {
    running: count(1), parking: count(2), flameout: count(3), noSignal: count(4),
    offline: devices.filter(([d, b]) => !online(d, b)).length, total: devices.length,
  };
}

describe('the online rule', () => {
  it('counts the same online vehicles on the dashboard as the tree and popup selector', () => {
    const selector = DEVICES.filter(([d, b]) => isVehicleOnline(stateOfDevice(d, b))).length;
    const dashboard = toCounts(serverReport(DEVICES), { total: 0 });
    expect(selector).toBe(4);
    expect(dashboard?.online).toBe(selector);
    expect(dashboard?.total).toBe(DEVICES.length);
  });
});
