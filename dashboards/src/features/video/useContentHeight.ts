/**
 * The video screens' content height (console-spec §2): the window height minus 200 px, minus a
 * further 210 px when the reset flag is set; recomputed on window resize.
 */
import { useEffect, useState } from 'react';
import { CONTENT_HEIGHT_OFFSET_PX, CONTENT_HEIGHT_RESET_OFFSET_PX } from './constants';

export function contentHeight(windowHeight: number, reset = false): number {
  return Math.max(240, windowHeight - CONTENT_HEIGHT_OFFSET_PX - (reset ? CONTENT_HEIGHT_RESET_OFFSET_PX : 0));
}

export function useContentHeight(reset = false): number {
  const [height, setHeight] = useState(() => contentHeight(window.innerHeight, reset));
  useEffect(() => {
    const update = () => setHeight(contentHeight(window.innerHeight, reset));
    update();
    window.addEventListener('resize', update);
    return () => window.removeEventListener('resize', update);
  }, [reset]);
  return height;
}
