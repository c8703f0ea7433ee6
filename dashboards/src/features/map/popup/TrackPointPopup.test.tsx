import { cleanup, render, screen } from '@testing-library/react';
import i18next from 'i18next';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { afterEach, describe, expect, it } from 'vitest';
import enMap from '../../../locales/en-US/map.json';
import enObd from '../../../locales/en-US/obd.json';
import zhMap from '../../../locales/zh-CN/map.json';
import zhObd from '../../../locales/zh-CN/obd.json';
import { TrackPointPopup } from './TrackPointPopup';

async function i18n(lng: 'zh-CN' | 'en-US') {
  const instance = i18next.createInstance();
  await instance.use(initReactI18next).init({
    lng,
    resources: { 'zh-CN': { map: zhMap, obd: zhObd }, 'en-US': { map: enMap, obd: enObd } },
    interpolation: { escapeValue: false },
  });
  return instance;
}

const point = {
  time: '2024-05-01T02:03:04Z',
  acc: 1,
  lng: 116.397128,
  lat: 39.916527,
  direction: 270,
  altitude: 52,
  mileage: 1234.56,
  speed: 61.2,
  oilmass: 40.5,
  alarm: 0,
};

describe('<TrackPointPopup>', () => {
  afterEach(cleanup);

  it('shows every field of the spec', async () => {
    render(
      <I18nextProvider i18n={await i18n('en-US')}>
        <TrackPointPopup point={point} />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('track-acc').textContent).toBe('ACC on');
    expect(screen.getByTestId('track-lng').textContent).toBe('116.397128');
    expect(screen.getByTestId('track-lat').textContent).toBe('39.916527');
    expect(screen.getByTestId('track-direction').textContent).toBe('270°');
    expect(screen.getByTestId('track-altitude').textContent).toBe('52 m');
    expect(screen.getByTestId('track-mileage').textContent).toBe('1234.6 km');
    expect(screen.getByTestId('track-speed').textContent).toBe('61.2 km/h');
    expect(screen.getByTestId('track-fuel').textContent).toBe('40.5 L');
    expect(screen.getByTestId('track-alarm').textContent).toBe('-');
    expect(screen.getByTestId('track-time').textContent).toMatch(/^2024-05-01 \d\d:03:04$/);
  });

  it('cuts a long alarm text to 35 characters plus an ellipsis, keeping the full text as a tooltip', async () => {
    const alarm = 0b1111111; // seven alarm bits, well over 35 characters in Chinese
    render(
      <I18nextProvider i18n={await i18n('zh-CN')}>
        <TrackPointPopup point={{ ...point, alarm }} />
      </I18nextProvider>,
    );
    const cell = screen.getByTestId('track-alarm');
    const text = cell.textContent ?? '';
    expect(text.endsWith('…')).toBe(true);
    expect(Array.from(text.slice(0, -1))).toHaveLength(35);
    expect(cell.getAttribute('title')?.startsWith(text.slice(0, -1))).toBe(true);
    expect(cell.getAttribute('title')).toContain('紧急报警');
  });

  it('uses a given alarm text instead of the bitmask', async () => {
    render(
      <I18nextProvider i18n={await i18n('zh-CN')}>
        <TrackPointPopup point={{ ...point, alarm: 1, alarmText: '前向碰撞预警' }} />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('track-alarm').textContent).toBe('前向碰撞预警');
  });

  it('lists the fault codes of a GB point by list, with the level and the MIL, and nothing for other points', async () => {
    render(
      <I18nextProvider i18n={await i18n('en-US')}>
        <TrackPointPopup point={{ ...point, alarmText: 'Battery fault', gbAlarm: { alarm: 0, level: 2, battery: [0x1001], motor: [], obd: [0xa1b2c3], mil: 1 } }} />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('track-gb-level').textContent).toBe('Level 2');
    expect(screen.getByTestId('track-gb-battery').textContent).toBe('0x00001001');
    expect(screen.getByTestId('track-gb-obd').textContent).toBe('0x00A1B2C3');
    expect(screen.getByTestId('track-gb-mil').textContent).toBe('Malfunction indicator lamp on');
    expect(screen.queryByTestId('track-gb-motor')).toBeNull();
    cleanup();
    render(
      <I18nextProvider i18n={await i18n('en-US')}>
        <TrackPointPopup point={point} />
      </I18nextProvider>,
    );
    expect(screen.queryByTestId('track-gb-alarm')).toBeNull();
  });
});
