import { describe, expect, it, vi } from 'vitest';
import { VehicleStateStore } from './vehicleStates';

describe('vehicle state store', () => {
  it('applies push type 1 (online/offline) and type 6 (business state)', () => {
    const store = new VehicleStateStore(0);
    store.seed([[5, { online: false, bizState: 0 }]]);
    expect(store.applyPush({ type: 1, data: { deviceId: 5, state: 1 } })).toBe(true);
    expect(store.get(5)).toEqual({ online: true, bizState: 4 });
    expect(store.applyPush({ type: 6, data: { deviceId: 5, bizState: 1 } })).toBe(true);
    expect(store.get(5)).toEqual({ online: true, bizState: 1 });
    store.applyPush({ type: 1, data: { deviceId: 5, state: 0 } });
    expect(store.get(5)).toEqual({ online: false, bizState: 0 });
  });

  it('ignores other push types', () => {
    const store = new VehicleStateStore(0);
    expect(store.applyPush({ type: 2, data: { deviceId: 5 } })).toBe(false);
    expect(store.get(5)).toBeUndefined();
  });

  it('takes the business state of an online device from position batches, never the online flag', () => {
    const store = new VehicleStateStore(0);
    store.applyPositions([{ deviceId: 9, bizState: 2 }]);
    expect(store.get(9)).toBeUndefined();
    store.seed([[9, { online: true, bizState: 1 }], [10, { online: false, bizState: 0 }]]);
    store.applyPositions([{ deviceId: 9, bizState: 2 }, { deviceId: 10, bizState: 1 }]);
    expect(store.get(9)).toEqual({ online: true, bizState: 2 });
    expect(store.get(10)).toEqual({ online: false, bizState: 0 });
  });

  it('notifies at most once per throttle window', () => {
    vi.useFakeTimers();
    try {
      const store = new VehicleStateStore(1000);
      const listener = vi.fn();
      store.subscribe(listener);
      for (let i = 0; i < 50; i += 1) store.applyPush({ type: 6, data: { deviceId: i, bizState: 1 } });
      expect(listener).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1000);
      expect(listener).toHaveBeenCalledTimes(1);
      expect(store.getVersion()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not let the seed override a pushed state', () => {
    const store = new VehicleStateStore(0);
    store.applyPush({ type: 6, data: { deviceId: 1, bizState: 3 } });
    store.seed([[1, { online: false, bizState: 0 }]]);
    expect(store.get(1)?.bizState).toBe(3);
  });
});
