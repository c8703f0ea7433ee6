import { describe, expect, it } from 'vitest';
import {
  isObdRoute, milState, monitors, MONITORS, obdProtocolKey, readingSeries, readingText,
} from '../obd';

describe('the heavy-diesel variants', () => {
  it('are the three OBD routes and no other', () => {
    expect(['g6CarDetail', 'hj1239CarDetail', 'db4403t363CarDetail'].every(isObdRoute)).toBe(true);
    expect(['carDetail', 'nevCarDetail', null, undefined, 'toString'].some(isObdRoute)).toBe(false);
  });
});

describe('OBD information', () => {
  it('names the three protocols of annex Q and nothing else', () => {
    expect([0, 1, 2].map(obdProtocolKey)).toEqual(['0', '1', '2']);
    expect([3, 0xfe, null, undefined].map(obdProtocolKey)).toEqual([null, null, null, null]);
  });

  it('reads the MIL as on, off or unknown', () => {
    expect([1, 0, null, 2].map(milState)).toEqual(['on', 'off', 'unknown', 'unknown']);
  });

  it('tells each monitor supported-and-ready, supported-not-ready or unsupported, bit 0 first', () => {
    // supported: catalyst (0), DPF (10), SCR (11), misfire (13); ready word: SCR not complete (bit 11)
    const supported = (1 << 0) | (1 << 10) | (1 << 11) | (1 << 13);
    const found = monitors(supported, (1 << 11) | (1 << 1));
    expect(found).toHaveLength(16);
    expect(Object.fromEntries(found.filter((m) => m.state !== 'unsupported').map((m) => [m.key, m.state]))).toEqual({
      catalyst: 'complete', dpf: 'complete', scrNox: 'incomplete', misfire: 'complete',
    });
    // an unsupported monitor's readiness bit does not make it "not ready"
    expect(found[1]).toEqual({ bit: 1, key: 'heatedCatalyst', state: 'unsupported' });
    expect(found.map((m) => m.key)).toEqual([...MONITORS]);
  });

  it('shows no monitors before the OBD block came', () => {
    expect(monitors(null, 0)).toEqual([]);
    expect(monitors(0xffff, undefined)).toEqual([]);
  });
});

describe('readings', () => {
  it('rounds to the resolution without the real column float noise', () => {
    expect(readingText(412.3500061035156, 2)).toBe('412.35');
    expect(readingText(60, 1)).toBe('60');
    expect([null, undefined, Number.NaN, '3'].map((v) => readingText(v, 1))).toEqual([null, null, null, null]);
  });

  it('charts each field in time order, a missing value a gap', () => {
    const series = readingSeries([
      { collectedAt: '2026-12-03T02:00:10Z', noxUpstreamPpm: 410, noxDownstreamPpm: 30, reagentLevelPct: 60 },
      { collectedAt: '2026-12-03T02:00:00Z', noxUpstreamPpm: 400, noxDownstreamPpm: null, reagentLevelPct: 61 },
      { collectedAt: 'not a time', noxUpstreamPpm: 1 },
    ]);
    const t0 = Date.parse('2026-12-03T02:00:00Z');
    expect(series.noxUpstreamPpm).toEqual([[t0, 400], [t0 + 10_000, 410]]);
    expect(series.noxDownstreamPpm).toEqual([[t0, null], [t0 + 10_000, 30]]);
    expect(series.reagentLevelPct).toEqual([[t0, 61], [t0 + 10_000, 60]]);
  });
});
