import { act, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import '../../../i18n';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import type { PushMessage } from '../../../live/types';
import { toNotifySettings, type NotifySettings } from '../../alarm/api';
import { StateChangeNoticesOf } from './StateChangeNotices';
import { stateNotice } from './stateNotice';

const listeners = new Set<(push: PushMessage) => void>();
const hub = {
  onPush: (listener: (push: PushMessage) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
const emit = (push: PushMessage) => act(() => listeners.forEach((listener) => listener(push)));
afterEach(() => listeners.clear());

const ticked = [{ key: 'v-7', deviceId: 7, plate: '京A00007' }];
const switches = (on: boolean) => toNotifySettings({ alarmRule: {}, carStateChangeWindowEnable: on });
const renderAt = (settings: NotifySettings | null, vehicles = ticked) => render(
  <SettingsProvider><AppProviders><StateChangeNoticesOf hub={hub} vehicles={vehicles} settings={settings} /></AppProviders></SettingsProvider>,
);

describe('which state pushes make a notice', () => {
  const map = new Map([[7, '京A00007']]);
  test('pushes 1 and 6 of a ticked vehicle', () => {
    expect(stateNotice({ type: 1, data: { deviceId: 7, state: 1 } }, map)).toEqual({ deviceId: 7, plate: '京A00007', change: 'online', bizState: null });
    expect(stateNotice({ type: 1, data: { deviceId: 7, state: 0 } }, map)?.change).toBe('offline');
    expect(stateNotice({ type: 6, data: { deviceId: 7, bizState: 2 } }, map)).toMatchObject({ change: 'bizState', bizState: 2 });
    expect(stateNotice({ type: 6, data: { deviceId: 7, bizState: 0 } }, map)?.change).toBe('offline');
  });
  test('nothing for a vehicle not ticked, another push type or a push without a state', () => {
    expect(stateNotice({ type: 1, data: { deviceId: 8, state: 1 } }, map)).toBeNull();
    expect(stateNotice({ type: 2, data: { deviceId: 7, state: 1 } }, map)).toBeNull();
    expect(stateNotice({ type: 6, data: { deviceId: 7 } }, map)).toBeNull();
  });
});

describe('vehicle state notices on the map (carStateChangeWindowEnable)', () => {
  const lines = () => screen.getAllByTestId('state-notice').map((line) => line.textContent);

  test('switch on: the plate and the new state of each ticked vehicle, the latest few in one window', async () => {
    renderAt(switches(true), [...ticked, { key: 'v-9', deviceId: 9, plate: '京A00009' }, { key: 'v-5', deviceId: 5, plate: '京A00005' },
      { key: 'v-3', deviceId: 3, plate: '京A00003' }]);
    emit({ type: 8, data: { deviceId: 7 } });
    emit({ type: 1, data: { deviceId: 8, carId: 80, plateNumber: '京A00008', state: 1 } }); // not ticked
    emit({ type: 6, data: { deviceId: 7, carId: 70, bizState: 1 } });
    await screen.findByTestId('state-notice', {}, { timeout: 5_000 });
    expect(screen.getByText('车辆状态变化')).toBeTruthy();
    expect(lines()).toEqual(['京A00007：行驶']);
    emit({ type: 1, data: { deviceId: 9, carId: 90, plateNumber: '京A00009', state: 0 } });
    emit({ type: 6, data: { deviceId: 7, carId: 70, bizState: 2 } }); // replaces the vehicle's older line
    await waitFor(() => expect(lines()).toEqual(['京A00007：停车', '京A00009：离线']));
    emit({ type: 1, data: { deviceId: 5, state: 1 } });
    emit({ type: 1, data: { deviceId: 3, state: 1 } });
    await waitFor(() => expect(lines()).toEqual(['京A00003：上线', '京A00005：上线', '京A00007：停车']));
    expect(screen.getAllByTestId('state-notices')).toHaveLength(1);
  });

  test('switch off: no notice', async () => {
    renderAt(switches(false));
    emit({ type: 1, data: { deviceId: 7, carId: 70, plateNumber: '京A00007', state: 0 } });
    await act(async () => { await new Promise((resolve) => setTimeout(resolve, 50)); });
    expect(screen.queryByTestId('state-notice')).toBeNull();
  });
});
