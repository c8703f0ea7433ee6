import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import type { PushMessage } from '../../../live/types';
import { AlarmNoticesOf } from '../AlarmNotices';
import { toNotifySettings, type NotifySettings } from '../api';

vi.setConfig({ testTimeout: 30_000 });

const listeners = new Set<(push: PushMessage) => void>();
const hub = {
  onPush: (listener: (push: PushMessage) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
const emit = (push: PushMessage) => act(() => listeners.forEach((listener) => listener(push)));
afterEach(() => listeners.clear());

const settings = toNotifySettings({
  alarmRule: {
    a0: { disabled: false, windowEnable: true, voiceEnable: true, voice: null, startHour: 8, endHour: 20 },
    a1: { disabled: true, windowEnable: true, voiceEnable: true, voice: null, startHour: 0, endHour: 24 },
  },
});
const alarm = (id: number, key: string) => ({ type: 2, data: { alarmId: id, key, plateNumber: '京A00002', desc: key === 'a0' ? '紧急报警' : '超速报警', startTime: 1764000000000 } });

const renderAt = (hour: number, rules: NotifySettings | null, say: (text: string, lang: string) => void) => render(
  <SettingsProvider><AppProviders>
    <AlarmNoticesOf hub={hub} settings={rules} say={say} now={() => new Date(2026, 10, 25, hour, 0, 0)} />
  </AppProviders></SettingsProvider>,
);

describe('alarm notifications (push 2)', () => {
  test('inside the rule hours: a window and the alarm spoken in the console language', async () => {
    const say = vi.fn();
    renderAt(9, settings, say);
    emit(alarm(1, 'a0'));
    const notice = await screen.findByTestId('alarm-notice', {}, { timeout: 5_000 });
    expect(notice.textContent).toContain('紧急报警');
    expect(screen.getByText('报警：京A00002')).toBeTruthy();
    expect(say).toHaveBeenCalledWith('京A00002，紧急报警', 'zh-CN');
  });

  test('outside the hours or for a disabled key: neither window nor voice', async () => {
    const say = vi.fn();
    renderAt(21, settings, say);
    emit(alarm(2, 'a0'));
    emit(alarm(3, 'a1'));
    emit({ type: 13, data: alarm(4, 'a0').data }); // push 13 is the dialog's, not a notice
    await act(async () => Promise.resolve());
    expect(screen.queryByTestId('alarm-notice')).toBeNull();
    expect(say).not.toHaveBeenCalled();
  });

  test('a fence crossing follows the rule of its kind: no window when the enter kind has none, its leave pops up', async () => {
    const say = vi.fn();
    const rules = toNotifySettings({
      alarmRule: { fence_enter: { disabled: false, windowEnable: false, voiceEnable: true, voice: '注意围栏', startHour: 0, endHour: 24 } },
    });
    renderAt(9, rules, say);
    const crossing = (id: number, kind: string) => ({
      type: 2, data: { alarmId: id, key: `fence:12:${kind}`, ruleKey: `fence_${kind}`, plateNumber: '京A00002', desc: kind, startTime: 1764000000000 },
    });
    emit(crossing(5, 'enter'));
    emit(crossing(6, 'leave'));
    const notice = await screen.findByTestId('alarm-notice', {}, { timeout: 5_000 });
    expect(notice.getAttribute('data-key')).toBe('fence:12:leave');
    expect(screen.getAllByTestId('alarm-notice')).toHaveLength(1);
    expect(say).toHaveBeenCalledTimes(1);
    expect(say).toHaveBeenCalledWith('注意围栏', 'zh-CN'); // the enter kind's voice text
  });
});
