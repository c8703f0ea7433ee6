/** The height of an element, followed with a ResizeObserver (the virtual tree needs a pixel height). */
import { useCallback, useState } from 'react';

export function useElementHeight<T extends HTMLElement>(): [(element: T | null) => (() => void) | undefined, number] {
  const [height, setHeight] = useState(0);
  const ref = useCallback((element: T | null) => {
    if (!element) return undefined;
    setHeight(element.clientHeight);
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver((entries) => {
      for (const entry of entries) setHeight(Math.round(entry.contentRect.height));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, height];
}
