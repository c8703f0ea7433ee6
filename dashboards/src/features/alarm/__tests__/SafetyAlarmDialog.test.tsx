import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import type { PushMessage } from '../../../live/types';
import { AlarmNoticesOf } from '../AlarmNotices';
import { toNotifySettings, type NotifySettings } from '../api';
import { SafetyAlarms } from '../SafetyAlarmDialog';
import SafetyQueueBadge from '../SafetyQueueBadge';
import { muteStorageKey } from '../safetyQueue';
import { createSafetyQueueStore, type SafetyQueueStore } from '../safetyQueueStore';

// Leaflet needs a real layout engine; the map's own tests cover it.
vi.mock('../AlarmMap', () => ({ AlarmMap: () => <div data-testid="alarm-map" /> }));

// Rendering antd dialogs is slow on a shared machine: generous limits, never sleeps.
vi.setConfig({ testTimeout: 30_000 });

const listeners = new Set<(push: PushMessage) => void>();
const hub = {
  onPush: (listener: (push: PushMessage) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
const emit = (push: PushMessage) => act(() => listeners.forEach((listener) => listener(push)));

const alarm = (id: number, desc: string) => ({
  id, _id: id, enterpriseId: 1, enterpriseName: '一车队', deviceId: 7, carId: 70, plateNumber: '京A00070', driverName: null,
  lat: 39.9, lng: 116.4, speed: 42.5, address: '北京市东城区', startTime: 1764000000000, atted: id === 101, warnUuid: 'u'.repeat(32),
  type: 6, key: 'dsm_1', level: 1, state: 0, opinion: null, desc,
});
/** Today's unhandled alarms of the car, newest first. */
let unhandled = [alarm(101, '一级 疲劳驾驶报警'), alarm(102, '一级 接打电话报警')];

const json = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200, headers: { 'Content-Type': 'application/json' } });
const PHOTO = { id: 9, objectKey: '/alarm/1/x/a.jpg', fileStoreType: 1, mediaType: 0 };
/** The attachment rows of alarm 101 stored so far. */
let files101 = [PHOTO];
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let store: SafetyQueueStore;

beforeEach(() => {
  store = createSafetyQueueStore();
  localStorage.clear();
  unhandled = [alarm(101, '一级 疲劳驾驶报警'), alarm(102, '一级 接打电话报警')];
  files101 = [PHOTO];
  fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const body = init?.body ? JSON.parse(String(init.body)) as Record<string, unknown> : {};
    const params = new URL(url, 'http://console').searchParams;
    if (url.startsWith('/api/common/count/alarm.json')) return json(body['state.eq'] === 0 ? unhandled.length : 5);
    if (url.startsWith('/api/common/query/alarm.json')) {
      if (body['id.eq'] !== undefined) return json({ list: unhandled.filter((a) => String(a.id) === String(body['id.eq'])) });
      const at = Number(params.get('pageNo')) - 1;
      return json({ list: unhandled.slice(at, at + 1), total: unhandled.length });
    }
    if (url.startsWith('/api/common/query/deviceUploadFile.json')) {
      return json({ list: String(body['alarmId.eq']) === '101' ? files101 : [] });
    }
    if (url.startsWith('/api/common/alarm/101/ignore.json')) {
      unhandled = unhandled.filter((a) => a.id !== 101);
      return json({ ...alarm(101, ''), state: 2 });
    }
    if (url.startsWith('/api/common/query/device.json')) {
      return json({ list: [{ id: 7, deviceName: null, deviceSn: 'SN7', phone: '13800000007', videoChannel: '1,2', talkChannel: '1', hasVideo: 1, hasPhoto: 1, hasMicrophone: 1 }] });
    }
    if (url.startsWith('/file/')) return new Response(new Uint8Array([0xff, 0xd8, 0xff]), { status: 200, headers: { 'Content-Type': 'image/jpeg' } });
    return json(null);
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(session, 'accessToken').mockReturnValue('token-6');
  URL.createObjectURL = vi.fn(() => 'blob:alarm-photo');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  listeners.clear();
});

const renderDialog = (settings: NotifySettings | null = null, hour = 12, say = vi.fn()) => render(
  <SettingsProvider><AppProviders><MemoryRouter>
    <SafetyQueueBadge store={store} />
    <SafetyAlarms hub={hub} settings={settings} now={() => new Date(2026, 10, 25, hour, 0, 0)} store={store} userId={6} />
    <AlarmNoticesOf hub={hub} settings={settings} say={say} now={() => new Date(2026, 10, 25, hour, 0, 0)} />
  </MemoryRouter></AppProviders></SettingsProvider>,
);
const dialog = () => screen.getByTestId('safety-alarm-dialog');
/** Closed: the content is gone, or (while antd's leave animation keeps it) its dialog is no longer open. */
const closed = () => {
  const shown = screen.queryByTestId('safety-alarm-dialog');
  return !shown || shown.closest('.ant-modal-wrap')?.getAttribute('style')?.includes('display: none') === true
    || shown.closest('.ant-zoom-leave') !== null;
};
const push13 = { type: 13, data: { alarmId: 101, deviceId: 7, carId: 70, plateNumber: '京A00070', type: 6, key: 'dsm_1', level: 1, desc: '一级 疲劳驾驶报警', startTime: 1764000000000, lat: 39.9, lng: 116.4, speed: 42.5, state: 0, warnUuid: 'u'.repeat(32), atted: true, driverName: null } };

describe('the real-time safety alarm dialog (push 13)', () => {
  test('pops up with the alarm, the car\'s counts of today and its photo', async () => {
    renderDialog();
    emit({ type: 2, data: push13.data }); // push 2 alone opens nothing
    expect(screen.queryByTestId('safety-alarm-dialog')).toBeNull();
    emit(push13);
    await screen.findByText('实时安全报警');
    expect(screen.getByText('处理状态：未处理')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('safety-alarm-unhandled').textContent).toBe('2'));
    expect(screen.getByTestId('safety-alarm-today').textContent).toBe('5');
    expect(screen.getByTestId('safety-alarm-driver').textContent).toBe('-');
    expect(screen.getByText('42.5 km/h')).toBeTruthy();
    expect(screen.getByText('北京市东城区')).toBeTruthy();
    const photo = (await screen.findByTestId('media-photo', {}, { timeout: 10_000 })) as HTMLImageElement;
    expect(photo.src).toBe('blob:alarm-photo');
    expect(fetchMock.mock.calls.some(([url]) => url === '/file/alarm/1/x/a.jpg')).toBe(true);
    const modal = document.querySelector('.ant-modal') as HTMLElement;
    expect(modal.style.width).toBe('1150px');
  });

  test('re-reads the attachments until every file the terminal announced is in, not only the first', async () => {
    unhandled = [{ ...alarm(101, '一级 疲劳驾驶报警'), attachmentCount: 2 } as ReturnType<typeof alarm>];
    renderDialog();
    emit(push13); // atted: the photo is stored, the clip still uploading
    await waitFor(() => expect(screen.getByTestId('alarm-attachments').getAttribute('data-count')).toBe('1'));
    files101 = [PHOTO, { id: 10, objectKey: '/alarm/1/x/b.mp4', fileStoreType: 1, mediaType: 2 }];
    await waitFor(() => expect(screen.getByTestId('alarm-attachments').getAttribute('data-count')).toBe('2'), { timeout: 10_000 });
  });

  test('moves among today\'s unhandled alarms of the car and stops at the first', async () => {
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('2'));
    fireEvent.click(screen.getByTestId('safety-alarm-previous'));
    expect(await screen.findByText('当前已是第一条记录')).toBeTruthy();
    expect(dialog().getAttribute('data-alarm-id')).toBe('101');
    fireEvent.click(screen.getByTestId('safety-alarm-next'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('102'));
    expect(dialog().getAttribute('data-index')).toBe('2');
    expect(screen.getByTestId('safety-alarm-desc').textContent).toBe('一级 接打电话报警');
    fireEvent.click(screen.getByTestId('safety-alarm-next'));
    expect(await screen.findByText('当前已是最后一条记录')).toBeTruthy();
    fireEvent.click(screen.getByTestId('safety-alarm-previous'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('101'));
  });

  test("ignoring shows the car's next unhandled alarm", async () => {
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('2'));
    fireEvent.click(screen.getByTestId('safety-alarm-ignore'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('102'));
    expect(dialog().getAttribute('data-unhandled')).toBe('1');
    expect(fetchMock.mock.calls.some(([url, init]) => url.startsWith('/api/common/alarm/101/ignore.json') && init?.method === 'POST')).toBe(true);
  });

  test('the fleet name is the vehicle\'s group the alarm row names, else its enterprise', async () => {
    unhandled = [{ ...alarm(101, '一级 疲劳驾驶报警'), fleetName: '第一车队' } as ReturnType<typeof alarm>, alarm(102, '一级 接打电话报警')];
    renderDialog();
    emit({ type: 13, data: { ...push13.data, enterpriseName: '示范一分公司' } });
    await waitFor(() => expect(screen.getByTestId('safety-alarm-fleet').textContent).toBe('第一车队'));
    emit({ type: 13, data: { ...push13.data, alarmId: 102, enterpriseName: '示范一分公司' } }); // waits its turn
    fireEvent.click(screen.getByTestId('safety-queue-newer'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('102'));
    await waitFor(() => expect(screen.getByTestId('safety-alarm-fleet').textContent).toBe('一车队')); // no group: the enterprise
  });

  test('a later push 13 queues while an alarm is on screen, newest first, and the operator steps through them', async () => {
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('2'));
    emit({ type: 13, data: { ...push13.data, alarmId: 102, desc: '一级 接打电话报警' } });
    expect(dialog().getAttribute('data-alarm-id')).toBe('101'); // never swapped under the operator
    expect(screen.getByTestId('safety-queue-position').textContent).toBe('队列第 2 / 2 条（最新在前）');
    fireEvent.click(screen.getByTestId('safety-queue-newer'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('102'));
    expect(screen.getByTestId('safety-queue-position').textContent).toBe('队列第 1 / 2 条（最新在前）');
    fireEvent.click(screen.getByTestId('safety-queue-older'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('101'));
  });

  test('closed on waiting alarms it stays closed: later pushes only count on the badge, which opens the newest', async () => {
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('2'));
    fireEvent.click(document.querySelector('.ant-modal-close') as HTMLElement);
    await waitFor(() => expect(closed()).toBe(true));
    for (const id of [102, 103, 104]) emit({ type: 13, data: { ...push13.data, alarmId: id } });
    await act(async () => { await new Promise((resolve) => setTimeout(resolve, 50)); });
    expect(closed()).toBe(true);
    expect(screen.getByTestId('safety-queue-badge').getAttribute('data-count')).toBe('4');
    fireEvent.click(screen.getByTestId('safety-queue-badge'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('104'));
    expect(screen.getByTestId('safety-queue-position').textContent).toBe('队列第 1 / 4 条（最新在前）');
  });

  test('a re-delivered push 13 neither reorders the queue the operator steps through nor counts twice', async () => {
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('2'));
    fireEvent.click(document.querySelector('.ant-modal-close') as HTMLElement);
    await waitFor(() => expect(closed()).toBe(true));
    for (const id of [102, 103, 104]) emit({ type: 13, data: { ...push13.data, alarmId: id } });
    emit({ type: 13, data: { ...push13.data, alarmId: 102 } }); // pushes are delivered at least once
    expect(screen.getByTestId('safety-queue-badge').getAttribute('data-count')).toBe('4');
    fireEvent.click(screen.getByTestId('safety-queue-badge'));
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('104'));
    emit({ type: 13, data: { ...push13.data, alarmId: 101 } }); // again, while the operator steps
    for (const [id, position] of [['103', 2], ['102', 3], ['101', 4]] as const) {
      fireEvent.click(screen.getByTestId('safety-queue-older'));
      await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe(id));
      expect(screen.getByTestId('safety-queue-position').textContent).toBe(`队列第 ${position} / 4 条（最新在前）`);
    }
    expect(screen.getByTestId('safety-queue-older').hasAttribute('disabled')).toBe(true);
  });

  test('a re-delivered push of an alarm handled since neither queues it nor pops the dialog up', async () => {
    unhandled = [alarm(101, '一级 疲劳驾驶报警')];
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('1'));
    fireEvent.click(screen.getByTestId('safety-alarm-ignore'));
    await waitFor(() => expect(closed()).toBe(true));
    emit(push13);
    await act(async () => { await new Promise((resolve) => setTimeout(resolve, 50)); });
    expect(closed()).toBe(true);
    expect(screen.queryByTestId('safety-queue-badge')).toBeNull();
  });

  test('handling the last queued alarm empties the queue and lets the next push pop up again', async () => {
    unhandled = [alarm(101, '一级 疲劳驾驶报警')];
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('1'));
    fireEvent.click(screen.getByTestId('safety-alarm-ignore'));
    await waitFor(() => expect(closed()).toBe(true));
    expect(screen.queryByTestId('safety-queue-badge')).toBeNull();
    unhandled = [alarm(102, '一级 接打电话报警')];
    emit({ type: 13, data: { ...push13.data, alarmId: 102 } });
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('102'));
  });

  test('a muted level is counted but does not pop up, and the mute is kept for the user', async () => {
    unhandled = [alarm(101, '一级 疲劳驾驶报警')];
    renderDialog();
    emit(push13);
    await waitFor(() => expect(dialog().getAttribute('data-unhandled')).toBe('1'));
    fireEvent.click(screen.getByTestId('safety-mute'));
    fireEvent.click(await screen.findByTestId('safety-mute-level-15'));
    expect(await screen.findByText('已静音 15 分钟：一级')).toBeTruthy();
    const stored = JSON.parse(localStorage.getItem(muteStorageKey(6)) ?? '[]') as unknown[];
    expect(stored).toEqual([{ by: 'level', value: '1', untilMs: new Date(2026, 10, 25, 12, 15, 0).getTime() }]);
    fireEvent.click(screen.getByTestId('safety-alarm-ignore')); // the queue empties: pushes may pop up again
    await waitFor(() => expect(closed()).toBe(true));
    unhandled = [alarm(102, ''), alarm(103, '')];
    emit({ type: 13, data: { ...push13.data, alarmId: 102, level: 1 } });
    await act(async () => { await new Promise((resolve) => setTimeout(resolve, 50)); });
    expect(closed()).toBe(true);
    expect(screen.getByTestId('safety-queue-badge').getAttribute('data-count')).toBe('1');
    emit({ type: 13, data: { ...push13.data, alarmId: 103, level: 2 } }); // another level still pops up
    await waitFor(() => expect(dialog().getAttribute('data-alarm-id')).toBe('103'));
    expect(screen.getByTestId('safety-queue-badge').getAttribute('data-count')).toBe('2');
  });

  test('voice talk opens the call to the vehicle, which says why the microphone did not open', async () => {
    renderDialog();
    emit(push13);
    await screen.findByText('实时安全报警');
    fireEvent.click(screen.getByTestId('safety-alarm-talk'));
    expect(await screen.findByText('与【京A00070】进行通话', {}, { timeout: 10_000 })).toBeTruthy();
    // jsdom has no microphone: the talk fails at its first step and sends no command
    await waitFor(() => expect(screen.getByTestId('talk-dialog').dataset.status).toBe('failed'), { timeout: 10_000 });
    expect(fetchMock.mock.calls.some(([url]) => url.includes('/9101.json'))).toBe(false);
  });
});

describe('the safety dialog follows the notification rule of its key (as the push-2 notices)', () => {
  const rules = toNotifySettings({
    alarmRule: {
      dsm_1: { disabled: false, windowEnable: true, voiceEnable: true, voice: null, startHour: 8, endHour: 20, source: 'enterprise' },
      dsm_2: { disabled: true, windowEnable: true, voiceEnable: true, voice: null, startHour: 0, endHour: 24, source: 'user' },
      dsm_3: { disabled: false, windowEnable: false, voiceEnable: true, voice: null, startHour: 0, endHour: 24, source: 'user' },
    },
  });
  /** Push 2 then push 13 of one active-safety alarm, as the streams send them. */
  const raise = (key: string, desc: string) => {
    const data = { ...push13.data, key, desc };
    emit({ type: 2, data });
    emit({ type: 13, data });
  };
  const settle = () => act(async () => { await new Promise((resolve) => setTimeout(resolve, 50)); });

  test('inside the rule hours the dialog opens and the alarm is spoken once', async () => {
    const say = vi.fn();
    renderDialog(rules, 9, say);
    raise('dsm_1', '一级 疲劳驾驶报警');
    await screen.findByTestId('safety-alarm-dialog');
    expect(say).toHaveBeenCalledTimes(1);
    expect(say).toHaveBeenCalledWith('京A00070，一级 疲劳驾驶报警', 'zh-CN');
  });

  test('outside the rule hours: no dialog and no voice', async () => {
    const say = vi.fn();
    renderDialog(rules, 21, say);
    raise('dsm_1', '一级 疲劳驾驶报警');
    await settle();
    expect(screen.queryByTestId('safety-alarm-dialog')).toBeNull();
    expect(say).not.toHaveBeenCalled();
  });

  test('a muted key: no dialog and no voice', async () => {
    const say = vi.fn();
    renderDialog(rules, 12, say);
    raise('dsm_2', '一级 接打电话报警');
    await settle();
    expect(screen.queryByTestId('safety-alarm-dialog')).toBeNull();
    expect(say).not.toHaveBeenCalled();
  });

  test('window off: no dialog, the voice as the rule says', async () => {
    const say = vi.fn();
    renderDialog(rules, 12, say);
    raise('dsm_3', '一级 抽烟报警');
    await settle();
    expect(screen.queryByTestId('safety-alarm-dialog')).toBeNull();
    expect(screen.queryByTestId('alarm-notice')).toBeNull();
    expect(say).toHaveBeenCalledTimes(1);
  });

  test('a key without any rule opens the dialog but stays silent (the built-in default)', async () => {
    const say = vi.fn();
    renderDialog(rules, 3, say);
    raise('dsm_4', '一级 分神驾驶报警');
    await screen.findByTestId('safety-alarm-dialog');
    expect(say).not.toHaveBeenCalled();
  });
});
