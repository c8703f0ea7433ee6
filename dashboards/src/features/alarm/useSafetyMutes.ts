/** The signed-in user's safety alarm mutes (safetyQueue.ts), kept in the browser as they change. */
import { useCallback, useState } from 'react';
import { addMute, readMutes, removeMute, writeMutes, type Mute, type MuteBy } from './safetyQueue';

export function useSafetyMutes(userId: number | null, now: () => Date) {
  const [mutes, setMutes] = useState<Mute[]>(() => readMutes(userId, now().getTime()));
  const change = useCallback((next: Mute[]) => {
    setMutes(next);
    writeMutes(userId, next);
  }, [userId]);
  const mute = (by: MuteBy, value: string, minutes: number) => change(addMute(mutes, by, value, minutes, now().getTime()));
  const unmute = (which: Mute) => change(removeMute(mutes, which.by, which.value));
  return { mutes, mute, unmute };
}
