import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import type { PushMessage } from '../../../live/types';
import { speak } from '../../alarm/speech';
import { InspectionQueue } from '../InspectionPopup';

vi.mock('../../alarm/speech', () => ({ speak: vi.fn() }));
// Rendering antd dialogs is slow on a shared machine: generous limits, never sleeps.
vi.setConfig({ testTimeout: 30_000 });

const NOW = Date.parse('2026-12-02T08:00:00Z');
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let openRows: Record<string, unknown>[];
let answerReply: { status: number; body: unknown };
const listeners = new Set<(push: PushMessage) => void>();
const hub = {
  onPush: (listener: (push: PushMessage) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};
const emit = (push: PushMessage) => act(() => listeners.forEach((listener) => listener(push)));
const iso = (ms: number) => new Date(ms).toISOString();
const inspection = (id: number, question: string, minutes: number | null) => ({
  inspectionId: id, platformId: 1, platformName: '省级监管平台', question, objectId: '7001',
  receivedAt: iso(NOW), deadline: minutes === null ? null : iso(NOW + minutes * 60_000), state: 'open',
});
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true, now: NOW });
  openRows = [];
  answerReply = { status: 200, body: { code: 0, message: 'ok', data: { id: 7, state: 'answered' } } };
  fetchMock = vi.fn(async (url: string) => {
    if (url.includes('/api/common/query/inspectMessage.json')) {
      return json(200, { code: 0, message: 'ok', data: { list: openRows, pageNo: 1, pageSize: 100 } });
    }
    return json(answerReply.status, answerReply.body);
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.spyOn(session, 'accessToken').mockReturnValue('token-7');
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  listeners.clear();
});

const renderQueue = () => render(<SettingsProvider><AppProviders><InspectionQueue hub={hub} /></AppProviders></SettingsProvider>);
const dialog = () => screen.getByTestId('inspection-dialog');

describe('the inspection pop-up', () => {
  test('an arriving inspection pops up with its question and a countdown; the answer is posted', async () => {
    renderQueue();
    emit({ type: 16, data: inspection(7, '请报告值班人员姓名', 10) });
    await screen.findByTestId('inspection-dialog', {}, { timeout: 10_000 });
    expect(screen.getByTestId('inspection-question').textContent).toBe('请报告值班人员姓名');
    expect(screen.getByTestId('inspection-countdown').textContent).toBe('剩余应答时间 10:00');
    act(() => void vi.advanceTimersByTime(61_000));
    expect(screen.getByTestId('inspection-countdown').textContent).toBe('剩余应答时间 08:59');
    fireEvent.change(screen.getByTestId('inspection-answer'), { target: { value: ' 张三在岗 ' } });
    fireEvent.click(screen.getByTestId('inspection-submit'));
    await waitFor(() => expect(screen.queryByTestId('inspection-dialog')).toBeNull());
    const [url, init] = fetchMock.mock.calls.find(([u]) => u.includes('/answer.json'))!;
    expect(url).toBe('/api/exchange/inspection/7/answer.json');
    expect(JSON.parse(String(init?.body))).toEqual({ answer: '张三在岗' });
  });

  test('one that arrived while nobody was signed in shows at sign-in', async () => {
    const { inspectionId: _omitted, ...row } = inspection(9, '昨晚的查岗', 30); // a row of the list: `id`
    openRows = [{ ...row, id: 9 }];
    renderQueue();
    await screen.findByTestId('inspection-dialog', {}, { timeout: 10_000 });
    expect(screen.getByTestId('inspection-question').textContent).toBe('昨晚的查岗');
    expect(String(fetchMock.mock.calls[0][0])).toContain('/api/common/query/inspectMessage.json');
    expect(JSON.parse(String(fetchMock.mock.calls[0][1]?.body))).toEqual({ 'state.eq': 'open' });
  });

  test('closed unanswered it stays on a badge; near its deadline it is alarmed once with the voice', async () => {
    renderQueue();
    emit({ type: 16, data: inspection(7, '请报告值班人员姓名', 5) });
    await screen.findByTestId('inspection-dialog', {}, { timeout: 10_000 });
    expect(dialog().getAttribute('data-alarmed')).toBe('false');
    fireEvent.click(screen.getByText('稍后应答'));
    const badge = await screen.findByTestId('inspection-badge');
    expect(badge.textContent).toContain('待应答查岗');
    act(() => void vi.advanceTimersByTime(4 * 60_000 + 1_000)); // the last 20 % of 5 minutes: 60 s
    await waitFor(() => expect(badge.querySelector('.inspection-alarmed')).not.toBeNull());
    expect(speak).toHaveBeenCalledTimes(1);
    fireEvent.click(badge.querySelector('button')!);
    await waitFor(() => expect(dialog().getAttribute('data-alarmed')).toBe('true'));
    act(() => void vi.advanceTimersByTime(5_000));
    expect(speak).toHaveBeenCalledTimes(1);
  });

  test('past its deadline it says so and offers no answer', async () => {
    renderQueue();
    emit({ type: 16, data: inspection(7, '请报告值班人员姓名', 1) });
    await screen.findByTestId('inspection-dialog', {}, { timeout: 10_000 });
    act(() => void vi.advanceTimersByTime(61_000));
    await screen.findByTestId('inspection-expired');
    expect(screen.queryByTestId('inspection-answer')).toBeNull();
    expect(screen.queryByTestId('inspection-submit')).toBeNull();
  });

  test('another push type shows nothing', async () => {
    renderQueue();
    emit({ type: 2, data: { alarmId: 1, receivedAt: iso(NOW), question: 'x' } });
    await act(async () => void (await vi.advanceTimersByTimeAsync(100)));
    expect(screen.queryByTestId('inspection-dialog')).toBeNull();
  });
});
