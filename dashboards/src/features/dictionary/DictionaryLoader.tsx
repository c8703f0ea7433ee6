import { useEffect } from 'react';
import { useSession } from '../../auth/useSession';
import { afterFirstContent } from '../../router/firstContent';
import { clearDriverCache } from '../driver/driverCache';
import { clearDictionaries, loadStartupDictionaries } from './dictionaryCache';

/** Mounted in the signed-in shell: loads the start-up dictionaries once per signed-in user, after the
 * opening page's first rows (router/firstContent.ts: no screen needs them to show its first rows; a
 * screen that does reads them through `loadDictionary`, which fetches on demand). */
export default function DictionaryLoader() {
  const userId = useSession().user?.id;
  useEffect(() => {
    if (userId === undefined) return undefined;
    const cancel = afterFirstContent(() => void loadStartupDictionaries());
    return () => {
      cancel();
      clearDictionaries();
      clearDriverCache(); // the driver cache lives for one signed-in user too (platform-spec §3)
    };
  }, [userId]);
  return null;
}
