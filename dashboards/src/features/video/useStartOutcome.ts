/**
 * A window's start outcome (startOutcome.ts): reads the start command's state every second until the
 * terminal answered, and once it accepted (or the stream was already fed: no command) watches for
 * media within `NO_MEDIA_MS`. Returns the refusal, or null while all is well (or not known yet).
 */
import { useEffect, useState } from 'react';
import { fetchVideoCommandState } from './api';
import { NO_MEDIA_MS, OUTCOME_POLL_MS, refusalOf, type StartRefusal } from './startOutcome';

export function useStartOutcome(commandId: number | null | undefined, streamKey: string | null, playing: boolean): StartRefusal | null {
  const [refusal, setRefusal] = useState<{ key: string; refusal: StartRefusal } | null>(null);
  const [acceptedKey, setAcceptedKey] = useState<string | null>(null);
  const noCommand = commandId === null || commandId === undefined;
  const accepted = !!streamKey && (noCommand || acceptedKey === streamKey);

  useEffect(() => {
    if (!streamKey || commandId === null || commandId === undefined) return undefined;
    const key = streamKey;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const state = await fetchVideoCommandState(commandId, controller.signal).catch(() => null);
      if (controller.signal.aborted) return;
      const found = refusalOf(state);
      if (found) setRefusal({ key, refusal: found });
      else if (found === null) setAcceptedKey(key);
      else timer = setTimeout(() => void poll(), OUTCOME_POLL_MS);
    };
    timer = setTimeout(() => void poll(), OUTCOME_POLL_MS);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [commandId, streamKey]);

  useEffect(() => {
    if (!streamKey || !accepted || playing) return undefined;
    const timer = setTimeout(() => setRefusal((current) => current?.key === streamKey ? current : { key: streamKey, refusal: 'noMedia' }), NO_MEDIA_MS);
    return () => clearTimeout(timer);
  }, [streamKey, accepted, playing]);

  return refusal?.key === streamKey ? refusal.refusal : null;
}
