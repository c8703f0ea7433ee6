/** An element's content size, followed with a ResizeObserver (the virtual tree needs its pixel height, a description
 * list its width). 0 until the element is laid out. */
import { useCallback, useState } from 'react';

export interface ElementSize {
  width: number;
  height: number;
}

export function useElementSize<T extends HTMLElement>(): [(element: T | null) => (() => void) | undefined, ElementSize] {
  const [size, setSize] = useState<ElementSize>({ width: 0, height: 0 });
  const ref = useCallback((element: T | null) => {
    if (!element) return undefined;
    const update = (width: number, height: number) =>
      setSize((last) => (last.width === width && last.height === height ? last : { width, height }));
    update(element.clientWidth, element.clientHeight);
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver((entries) => {
      for (const entry of entries) update(Math.round(entry.contentRect.width), Math.round(entry.contentRect.height));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, size];
}
