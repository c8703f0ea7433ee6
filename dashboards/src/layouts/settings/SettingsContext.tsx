import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { loadSettings, type LayoutSettings } from './model';

interface SettingsApi {
  settings: LayoutSettings;
  update: (patch: Partial<LayoutSettings>) => void;
}

const SettingsContext = createContext<SettingsApi | null>(null);

/** Live layout settings; the drawer changes them at once, "save" writes them to localStorage. */
export function SettingsProvider({ children }: { children: ReactNode }) {
  const [settings, setSettings] = useState<LayoutSettings>(loadSettings);
  const api = useMemo<SettingsApi>(
    () => ({ settings, update: (patch) => setSettings((current) => ({ ...current, ...patch })) }),
    [settings],
  );
  return <SettingsContext.Provider value={api}>{children}</SettingsContext.Provider>;
}

// eslint-disable-next-line react-refresh/only-export-components
export function useLayoutSettings(): SettingsApi {
  const api = useContext(SettingsContext);
  if (!api) throw new Error('useLayoutSettings outside SettingsProvider');
  return api;
}
