// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchSize } from './watchSize';

describe('the map follows its container size', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('re-measures the map once per frame after the container resized, and stops on cleanup', () => {
    let notify: () => void = () => undefined;
    const disconnect = vi.fn();
    vi.stubGlobal(
      'ResizeObserver',
      class {
        constructor(callback: () => void) {
          notify = callback;
        }
        observe() {}
        disconnect = disconnect;
      },
    );
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (run: FrameRequestCallback) => frames.push(run));
    vi.stubGlobal('cancelAnimationFrame', () => undefined);
    const map = { invalidateSize: vi.fn() };
    const stop = watchSize(document.createElement('div'), map as never);
    notify(); // sidebar collapsed
    notify(); // same frame
    expect(frames).toHaveLength(1);
    frames[0](0);
    expect(map.invalidateSize).toHaveBeenCalledWith({ pan: false });
    stop();
    expect(disconnect).toHaveBeenCalled();
  });
});
