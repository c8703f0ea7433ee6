import { act, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import type { PushMessage } from '../../../live/types';
import { MediaUploads } from '../MediaUploadPopup';

// Rendering antd dialogs is slow on a shared machine: generous limits, never sleeps.
vi.setConfig({ testTimeout: 30_000 });

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
const listeners = new Set<(push: PushMessage) => void>();
const hub = {
  onPush: (listener: (push: PushMessage) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
const emit = (push: PushMessage) => act(() => listeners.forEach((listener) => listener(push)));
const upload = (mediaType: number, id: number) => ({
  type: 9, data: { _id: id, plateNumber: '京A00009', deviceName: '终端9', mediaType, objectKey: `/media/9/${id}.bin`, fileStoreType: 1, bizType: 0, deviceId: 9 },
});

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  fetchMock = vi.fn(async () => new Response(new Uint8Array([0xff, 0xd8, 0xff]), { status: 200, headers: { 'Content-Type': 'image/jpeg' } }));
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(session, 'authorization').mockReturnValue('Bearer token-9'); // the session's header (Basic under protocol 1)
  URL.createObjectURL = vi.fn(() => 'blob:media-9');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  listeners.clear();
});

/** Closed: the content is gone, or (while antd's leave animation keeps it) its dialog is no longer open. */
const closed = () => {
  const popup = screen.queryByTestId('media-popup');
  return !popup || popup.closest('.ant-modal-wrap')?.getAttribute('style')?.includes('display: none') || popup.closest('.ant-zoom-leave') !== null;
};
const renderPopup = () => render(<SettingsProvider><AppProviders><MediaUploads hub={hub} /></AppProviders></SettingsProvider>);

describe('the media-upload popup', () => {
  test('shows an uploaded photo fetched with the token and closes itself after 15 s', async () => {
    renderPopup();
    emit(upload(0, 41));
    const photo = (await screen.findByTestId('media-photo', {}, { timeout: 10_000 })) as HTMLImageElement;
    expect(photo.src).toBe('blob:media-9');
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('/file/media/9/41.bin');
    expect((init?.headers as Record<string, string>).Authorization).toBe('Bearer token-9');
    expect(screen.getByTestId('media-countdown').textContent).toBe('15 秒后自动关闭');
    expect(screen.getByText('京A00009 上传了照片')).toBeTruthy();
    expect(closed()).toBe(false);
    act(() => void vi.advanceTimersByTime(15_000));
    await waitFor(() => expect(closed()).toBe(true));
  });

  test('plays audio and counts 300 s down in 15 s steps', async () => {
    renderPopup();
    emit(upload(1, 42));
    await screen.findByTestId('media-audio', {}, { timeout: 10_000 });
    expect(screen.getByTestId('media-countdown').getAttribute('data-seconds')).toBe('300');
    act(() => void vi.advanceTimersByTime(14_000));
    expect(screen.getByTestId('media-countdown').getAttribute('data-seconds')).toBe('300');
    act(() => void vi.advanceTimersByTime(1_000));
    expect(screen.getByTestId('media-countdown').getAttribute('data-seconds')).toBe('285');
    act(() => void vi.advanceTimersByTime(270_000));
    expect(closed()).toBe(false);
    act(() => void vi.advanceTimersByTime(15_000));
    await waitFor(() => expect(closed()).toBe(true));
  });

  test('shows a video clip, and a newer upload replaces the shown one with a fresh countdown', async () => {
    renderPopup();
    emit(upload(0, 43));
    await screen.findByTestId('media-photo', {}, { timeout: 10_000 });
    act(() => void vi.advanceTimersByTime(10_000));
    emit(upload(2, 44));
    await screen.findByTestId('media-video');
    expect(screen.getByTestId('media-popup').getAttribute('data-file-id')).toBe('44');
    expect(screen.getByTestId('media-countdown').getAttribute('data-seconds')).toBe('600');
    expect(fetchMock.mock.calls.map(([url]) => url)).toContain('/file/media/9/44.bin');
  });
});
