// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { availableBaseLayers, BLANK_LAYER_ID } from './baseLayers';
import { useBaseLayerFallback } from './useBaseLayerFallback';

describe('the base layer of every map page', () => {
  const layers = availableBaseLayers({});
  const network = layers.find((l) => l.id !== BLANK_LAYER_ID);

  it('shows the chosen layer until its tiles fail, then the offline layer with a notice, and retries', () => {
    expect(network).toBeDefined();
    const { result } = renderHook(() => useBaseLayerFallback(layers, network!.id));
    expect(result.current.baseLayer.id).toBe(network!.id);
    expect(result.current.failed).toBe(false);
    act(() => result.current.onTilesFailed?.());
    expect(result.current.baseLayer.id).toBe(BLANK_LAYER_ID);
    expect(result.current.failed).toBe(true);
    expect(result.current.onTilesFailed).toBeUndefined(); // the offline layer has nothing to fail
    act(() => result.current.retry());
    expect(result.current.baseLayer.id).toBe(network!.id);
  });

  it('never reports the offline layer itself as failed', () => {
    const { result } = renderHook(() => useBaseLayerFallback(layers, BLANK_LAYER_ID));
    act(() => result.current.onTilesFailed?.());
    expect(result.current.failed).toBe(false);
    expect(result.current.baseLayer.id).toBe(BLANK_LAYER_ID);
  });
});
