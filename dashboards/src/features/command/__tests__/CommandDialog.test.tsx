import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { configureClientEffects } from '../../../api/effects';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import type { CarRow } from '../../map/model/types';
import { CommandDialog } from '../CommandDialog';
import type { CommandAction } from '../payloads';

// Rendering antd dialogs is slow on a shared machine: generous limits, never sleeps.
vi.setConfig({ testTimeout: 30_000 });
const findText = (text: string) => screen.findByText(text, {}, { timeout: 5_000 });

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown, message = 'ok') => json({ code: 0, message, data });
const ACCEPTED = '指令已下发，等待网关处理中';

const car = { carId: 5, plateNumber: '京A00005', masterDeviceId: 11 } as CarRow;
const device = (id: number, extra: Record<string, unknown> = {}) => ({
  id, deviceName: `终端${id}`, deviceSn: `SN${id}`, phone: `1380000000${id}`, videoChannel: '1,2', hasVideo: 1, hasPhoto: 1, hasMicrophone: 0, ...extra,
});

let devices: unknown[];
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let commandReply: () => Response;
let notifyError: Mock<(title: string, message: string) => void>;
let restoreEffects: () => void;

beforeEach(() => {
  devices = [device(11)];
  commandReply = () => ok({ id: 99, carId: 5, deviceId: 11, msgId: 0x8300, state: 'created' }, ACCEPTED);
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/query/device.json')) return ok({ list: devices });
    if (url === '/api/command/5/8104.json') return ok({ id: 98, carId: 5, deviceId: 11, msgId: 0x8104, state: 'created' }, ACCEPTED);
    if (url === '/api/command/98/state.json') return ok({ id: 98, state: 'answered', result: null, replyMsgId: 0x0104 });
    if (url === '/api/device/11/terminal/params.json') return ok({ '0055': '00000078', '0056': '0000000A' });
    if (url.startsWith('/api/command/5/')) return commandReply();
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
  notifyError = vi.fn();
  restoreEffects = configureClientEffects({ notifyError });
});
afterEach(() => {
  restoreEffects();
  vi.unstubAllGlobals();
});

function open(action: CommandAction) {
  const onClose = vi.fn();
  render(<SettingsProvider><AppProviders><MemoryRouter><CommandDialog action={action} car={car} onClose={onClose} /></MemoryRouter></AppProviders></SettingsProvider>);
  return onClose;
}
const sent = (path: string) => fetchMock.mock.calls.filter(([url]) => url === `${path}`).map(([, init]) => JSON.parse(String(init?.body)));
const send = () => fireEvent.click(screen.getByTestId('command-send'));
const type = (element: HTMLElement, value: string) => fireEvent.change(element, { target: { value } });

describe('the text message dialog', () => {
  test('is titled with the plate, requires content and allows at most 150 characters', async () => {
    open('text');
    expect(await findText('下发信息到【京A00005】')).toBeTruthy();
    const content = (await screen.findByTestId('text-content', {}, { timeout: 10_000 })) as HTMLTextAreaElement;
    send();
    expect(await findText('下发内容不能为空')).toBeTruthy();
    type(content, '字'.repeat(151));
    send();
    expect(await findText('下发内容最多150个字')).toBeTruthy();
    expect(sent('/api/command/5/8300.json')).toEqual([]);
  });

  test('sends 8300 to the car, shows the server message and closes', async () => {
    const onClose = open('text');
    type(await screen.findByTestId('text-content', {}, { timeout: 10_000 }), '请到3号门卸货');
    send();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent('/api/command/5/8300.json')).toEqual([{ content: '请到3号门卸货', tts: false, display: true, emergency: false, textType: 1, deviceId: 11 }]);
    expect(await findText(ACCEPTED)).toBeTruthy();
  });

  test('an offline terminal: the server refusal is shown and the dialog stays open', async () => {
    commandReply = () => json({ code: 409, message: '终端不在线，不能发送指令！', data: null }, 409);
    const onClose = open('tts');
    expect(await findText('TTS语音广播')).toBeTruthy();
    type(await screen.findByTestId('text-content', {}, { timeout: 10_000 }), '前方限速60');
    send();
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('请求错误', '终端不在线，不能发送指令！'));
    expect(onClose).not.toHaveBeenCalled();
    expect(sent('/api/command/5/8300.json')[0]).toMatchObject({ content: '前方限速60', tts: true });
  });
});

describe('the capture dialog', () => {
  test('says so when no device of the car can take photos', async () => {
    devices = [device(11, { hasPhoto: 0 })];
    open('photo');
    expect(await findText('该车辆没有安装具备该功能的设备')).toBeTruthy();
  });

  test('offers a device selector when the car has two devices and captures on the chosen one', async () => {
    devices = [device(11), device(12, { videoChannel: '1,2,3,4' })];
    const onClose = open('photo');
    expect(await findText('对【京A00005】进行抓拍')).toBeTruthy();
    await screen.findByTestId('command-device', {}, { timeout: 10_000 });
    send();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent('/api/command/5/8801.json')[0]).toMatchObject({ deviceId: 11, channelId: 1, commandType: 2, totalPicture: 1, luminance: 127 });
  });
});

describe('the alarm configuration dialog', () => {
  test('reads the current values first, validates with the spec messages and writes 8103', async () => {
    const onClose = open('alarmSetting');
    expect(await findText('对【京A00005】进行报警配置')).toBeTruthy();
    await screen.findByTestId('alarm-read', {}, { timeout: 10_000 });
    const maxSpeed = screen.getByTestId('alarm-maxSpeed') as HTMLInputElement;
    await waitFor(() => expect(maxSpeed.value).toBe('120'));
    type(maxSpeed, '');
    send();
    expect(await findText('最高速度不能为空')).toBeTruthy();
    type(maxSpeed, '200');
    send();
    expect(await findText('请输入1~180之间的整数')).toBeTruthy();
    type(maxSpeed, '90');
    send();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent('/api/command/5/8104.json')).toEqual([{ deviceId: 11 }]);
    expect(sent('/api/command/5/8103.json')).toEqual([{ deviceId: 11, paramList: [{ id: '0055', value: 90 }, { id: '0056', value: 10 }] }]);
  });

  test('keeps what the user typed before the terminal answered and fills the other fields from the answer', async () => {
    let answer: (response: Response) => void = () => undefined;
    const answered = new Promise<Response>((resolve) => { answer = resolve; });
    const reply = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) =>
      (url === '/api/device/11/terminal/params.json' ? answered : reply(url, init)));
    const onClose = open('alarmSetting');
    const maxSpeed = await screen.findByTestId('alarm-maxSpeed', {}, { timeout: 10_000 }) as HTMLInputElement;
    await screen.findByTestId('alarm-reading');
    type(maxSpeed, '95');
    answer(ok({ '0055': '00000078', '0056': '0000000A' }));
    await screen.findByTestId('alarm-read', {}, { timeout: 10_000 });
    expect(maxSpeed.value).toBe('95');
    send();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent('/api/command/5/8103.json')).toEqual([{ deviceId: 11, paramList: [{ id: '0055', value: 95 }, { id: '0056', value: 10 }] }]);
  });
});
