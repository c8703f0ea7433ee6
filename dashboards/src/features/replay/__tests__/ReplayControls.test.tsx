import { act, fireEvent, render, screen } from '@testing-library/react';
import i18next from 'i18next';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import enReplay from '../../../locales/en-US/replay.json';
import zhReplay from '../../../locales/zh-CN/replay.json';
import { ReplayControls } from '../ReplayControls';
import type { VehicleTrack } from '../track';
import { useReplay } from '../useReplay';

async function i18n(lng: 'zh-CN' | 'en-US') {
  const instance = i18next.createInstance();
  await instance.use(initReactI18next).init({
    lng,
    resources: { 'zh-CN': { replay: zhReplay }, 'en-US': { replay: enReplay } },
    interpolation: { escapeValue: false },
  });
  return instance;
}

const track = (carId: number, times: number[]): VehicleTrack => ({
  carId,
  plateNumber: `P${carId}`,
  color: '#000',
  alarms: [],
  alarmsTruncated: false,
  total: times.length,
  thinned: false,
  flagged: 0,
  stops: [],
  points: times.map((time, i) => ({ time, lng: 114 + i / 1000, lat: 22, speed: 10 })),
});

const TRACKS = [track(1, [0, 10_000, 20_000, 30_000]), track(2, [5000, 15_000, 25_000, 35_000])];

function Harness({ onState }: { onState: (r: ReturnType<typeof useReplay>) => void }) {
  const replay = useReplay(TRACKS);
  onState(replay);
  return <ReplayControls replay={replay} />;
}

describe('<ReplayControls> on one clock for two vehicles', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame', 'performance', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('plays, pauses (keeping each marker), resumes and names the next action on its button', async () => {
    let replay!: ReturnType<typeof useReplay>;
    render(
      <I18nextProvider i18n={await i18n('en-US')}>
        <Harness onState={(r) => (replay = r)} />
      </I18nextProvider>,
    );
    expect(replay.timeline).toHaveLength(8);
    expect(screen.getByTestId('replay-play').textContent).toContain('Play');
    fireEvent.click(screen.getByTestId('replay-play'));
    expect(replay.pointIndex.get(1)).toBe(0);
    act(() => {
      vi.advanceTimersByTime(3000); // speed 10: 3 timeline steps, time 15 000
    });
    expect(replay.time).toBe(15_000);
    expect(replay.pointIndex.get(1)).toBe(1);
    expect(replay.pointIndex.get(2)).toBe(1);
    fireEvent.click(screen.getByTestId('replay-pause'));
    act(() => {
      vi.advanceTimersByTime(10_000);
    });
    expect(replay.time).toBe(15_000);
    expect(screen.getByTestId('replay-controls').dataset.status).toBe('paused');
    fireEvent.click(screen.getByTestId('replay-resume'));
    act(() => {
      vi.advanceTimersByTime(10_000);
    });
    expect(replay.state).toMatchObject({ status: 'paused', index: 7, ended: true });
    expect(replay.pointIndex.get(1)).toBe(3);
    expect(replay.pointIndex.get(2)).toBe(3);
  });

  it('restart hides the markers, then plays again from the first point after 500 ms', async () => {
    let replay!: ReturnType<typeof useReplay>;
    render(
      <I18nextProvider i18n={await i18n('zh-CN')}>
        <Harness onState={(r) => (replay = r)} />
      </I18nextProvider>,
    );
    fireEvent.click(screen.getByTestId('replay-play'));
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    fireEvent.click(screen.getByTestId('replay-restart'));
    expect(screen.getByTestId('replay-restart').textContent).toContain('重新播放');
    expect(replay.time).toBeNull();
    expect(replay.pointIndex.get(1)).toBeNull();
    act(() => {
      vi.advanceTimersByTime(500);
    });
    expect(replay.state.status).toBe('playing');
    expect(replay.time).toBe(0);
  });
});
