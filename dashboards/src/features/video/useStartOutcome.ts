/**
 * A window's start outcome (startOutcome.ts): reads the start command's state every second until the
 * terminal answered, and watches for media within `NO_MEDIA_MS`. Returns the refusal, or null while
 * all is well (or not known yet).
 */
import { useEffect, useState } from 'react';
import { fetchVideoCommandState } from './api';
import { NO_MEDIA_MS, OUTCOME_POLL_MS, refusalOf, type StartRefusal } from './startOutcome';

export function useStartOutcome(commandId: number | null | undefined, streamKey: string | null, playing: boolean): StartRefusal | null {
  const [refusal, setRefusal] = useState<{ key: string; refusal: StartRefusal } | null>(null);

  useEffect(() => {
    if (!streamKey || commandId === null || commandId === undefined) return undefined;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const state = await fetchVideoCommandState(commandId, controller.signal).catch(() => null);
      if (controller.signal.aborted) return;
      const found = refusalOf(state);
      if (found) setRefusal({ key: streamKey, refusal: found });
      else if (found === undefined) timer = setTimeout(() => void poll(), OUTCOME_POLL_MS);
    };
    timer = setTimeout(() => void poll(), OUTCOME_POLL_MS);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [commandId, streamKey]);

  useEffect(() => {
    if (!streamKey || playing) return undefined;
    const timer = setTimeout(() => setRefusal((current) => current?.key === streamKey ? current : { key: streamKey, refusal: 'noMedia' }), NO_MEDIA_MS);
    return () => clearTimeout(timer);
  }, [streamKey, playing]);

  return refusal?.key === streamKey ? refusal.refusal : null;
}
