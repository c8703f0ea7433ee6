import { act, render, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import '../../i18n';
import { CommandNoticesOf } from '../../features/command/CommandNotices';
import { SettingsProvider } from '../../layouts/settings/SettingsContext';
import type { PushMessage } from '../../live/types';
import AppProviders from '../AppProviders';
import { MAX_TOASTS, noticeCentre } from './noticeCentre';

vi.setConfig({ testTimeout: 30_000 });

const listeners = new Set<(push: PushMessage) => void>();
const hub = {
  onPush: (listener: (push: PushMessage) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
afterEach(() => {
  listeners.clear();
  noticeCentre.clear();
});

describe('a burst of notices', () => {
  test('shows at most two toasts at once and keeps all of them in the centre', async () => {
    render(<SettingsProvider><AppProviders><CommandNoticesOf hub={hub} userId={() => 7} /></AppProviders></SettingsProvider>);
    act(() => {
      for (let id = 1; id <= 5; id += 1) {
        const push = { type: 12, data: { commandId: id, createdBy: 7, deviceId: 3, plateNumber: `京A0000${id}`, msgId: 0x8300, reason: 1 } };
        listeners.forEach((listener) => listener(push));
      }
    });
    await waitFor(() => expect(document.querySelectorAll('[data-testid=command-notice]').length).toBeGreaterThan(0));
    expect(document.querySelectorAll('[data-testid=command-notice]').length).toBeLessThanOrEqual(MAX_TOASTS);
    expect(noticeCentre.list()).toHaveLength(5);
    expect(noticeCentre.list()[0].title).toContain('京A00005');
  });
});
