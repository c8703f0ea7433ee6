import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import i18n from 'i18next';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import type { PushMessage } from '../../../live/types';
import { CommandNoticesOf } from '../CommandNotices';

// Rendering antd dialogs is slow on a shared machine: generous limits, never sleeps.
vi.setConfig({ testTimeout: 30_000 });
const findText = (text: string) => screen.findByText(text, {}, { timeout: 5_000 });

const listeners = new Set<(push: PushMessage) => void>();
const hub = {
  onPush: (listener: (push: PushMessage) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
const emit = (push: PushMessage) => act(() => listeners.forEach((listener) => listener(push)));
afterEach(async () => {
  listeners.clear();
  await i18n.changeLanguage('zh-CN');
});

const ME = 7;
const renderNotices = () => render(<SettingsProvider><AppProviders><CommandNoticesOf hub={hub} userId={() => ME} /></AppProviders></SettingsProvider>);

describe('command result notices (pushes 11 and 12)', () => {
  test('name the vehicle, the command and the outcome', async () => {
    renderNotices();
    emit({ type: 11, data: { commandId: 1, createdBy: ME, deviceId: 3, plateNumber: '京A00003', msgId: 0x8300, state: 'answered', result: 0 } });
    expect(await findText('指令结果：京A00003')).toBeTruthy();
    expect((await findText('文本信息下发：成功')).getAttribute('data-outcome')).toBe('success');
    emit({ type: 11, data: { commandId: 2, createdBy: ME, deviceId: 3, plateNumber: '京A00003', msgId: 0x8801, state: 'answered', result: 3 } });
    expect(await findText('摄像头立即拍摄：终端不支持')).toBeTruthy();
    emit({ type: 11, data: { commandId: 3, createdBy: ME, deviceId: 3, plateNumber: '京A00003', msgId: 0x8104, state: 'timed_out', result: null } });
    expect(await findText('查询终端参数：终端应答超时')).toBeTruthy();
    emit({ type: 12, data: { commandId: 4, createdBy: ME, deviceId: 3, plateNumber: '京A00003', msgId: 0x8103, reason: 1, message: '终端不在线 (offline)' } });
    expect(await findText('设置终端参数：车辆不在线，指令未下发')).toBeTruthy();
  });

  test('speak the console language and ignore other pushes', async () => {
    await i18n.changeLanguage('en-US');
    renderNotices();
    emit({ type: 9, data: { objectKey: '/media/x.jpg' } });
    emit({ type: 12, data: { commandId: 5, createdBy: ME, deviceId: 3, plateNumber: '京A00003', msgId: 0x8300, reason: 2 } });
    expect(await findText('Text message: message error')).toBeTruthy();
    expect(screen.getAllByTestId('command-notice')).toHaveLength(1);
  });

  test("tell only the command's sender: the platform's own and other operators' commands show no notice", async () => {
    renderNotices();
    emit({ type: 11, data: { commandId: 6, deviceId: 3, plateNumber: '京A00006', msgId: 0x9208, state: 'timed_out', result: null, createdBy: null } });
    emit({ type: 12, data: { commandId: 7, deviceId: 3, plateNumber: '京A00007', msgId: 0x8300, reason: 1, createdBy: ME + 1 } });
    emit({ type: 11, data: { commandId: 8, deviceId: 3, plateNumber: '京A00008', msgId: 0x8300, state: 'answered', result: 0, createdBy: ME } });
    expect(await findText('指令结果：京A00008')).toBeTruthy();
    expect(screen.getAllByTestId('command-notice').map((n) => n.getAttribute('data-command-id'))).toEqual(['8']);
  });
});
