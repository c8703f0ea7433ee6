// @vitest-environment jsdom
import L from 'leaflet';
import { describe, expect, it, vi } from 'vitest';
import { TILE_SILENCE_MS, tileVerdict, watchTiles } from './tileProbe';

describe('base layer tile probe', () => {
  it('one loaded tile is enough; only errors or silence fail', () => {
    expect(tileVerdict(1, 10, 60_000)).toBe('ok');
    expect(tileVerdict(0, 3, 100)).toBe('failed');
    expect(tileVerdict(0, 0, TILE_SILENCE_MS)).toBe('failed');
    expect(tileVerdict(0, 2, 1000)).toBe('pending');
    expect(tileVerdict(0, 0, null)).toBe('pending');
  });

  it('reports a tile layer (also inside a group) whose tiles all fail, once', () => {
    const tiles = L.tileLayer('https://example.invalid/{z}/{x}/{y}.png');
    const onFailed = vi.fn();
    const stop = watchTiles(L.layerGroup([tiles]), onFailed);
    for (let i = 0; i < 5; i += 1) tiles.fire('tileerror');
    expect(onFailed).toHaveBeenCalledTimes(1);
    stop();
  });

  it('stays quiet once a tile loaded', () => {
    const tiles = L.tileLayer('https://example.invalid/{z}/{x}/{y}.png');
    const onFailed = vi.fn();
    const stop = watchTiles(tiles, onFailed);
    tiles.fire('tileload');
    for (let i = 0; i < 5; i += 1) tiles.fire('tileerror');
    expect(onFailed).not.toHaveBeenCalled();
    stop();
  });
});
