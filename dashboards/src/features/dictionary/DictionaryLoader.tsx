import { useEffect } from 'react';
import { useSession } from '../../auth/useSession';
import { clearDictionaries, loadStartupDictionaries } from './dictionaryCache';

/** Mounted in the signed-in shell: loads the start-up dictionaries once per signed-in user. */
export default function DictionaryLoader() {
  const userId = useSession().user?.id;
  useEffect(() => {
    if (userId === undefined) return undefined;
    void loadStartupDictionaries();
    return () => clearDictionaries();
  }, [userId]);
  return null;
}
