import { useCallback, useEffect, useRef, useState } from 'react';
import { fetchMonitor, REFRESH_MS, type MonitorSnapshot } from './model';

/** The latest snapshot, refreshed every REFRESH_MS while mounted (a failed read keeps the last one);
 * ``refresh`` reads it now (the button), ``loading`` is true while that read runs. */
export function useSystemMonitor(): { snapshot: MonitorSnapshot | null; loading: boolean; refresh: () => void } {
  const [snapshot, setSnapshot] = useState<MonitorSnapshot | null>(null);
  const [loading, setLoading] = useState(false);
  const controller = useRef<AbortController | null>(null);

  const load = useCallback(() => {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    void fetchMonitor(current.signal).then((value) => {
      if (current.signal.aborted) return;
      if (value) setSnapshot(value);
      setLoading(false);
    });
  }, []);

  useEffect(() => {
    load();
    const timer = window.setInterval(load, REFRESH_MS);
    return () => {
      window.clearInterval(timer);
      controller.current?.abort();
    };
  }, [load]);

  const refresh = useCallback(() => {
    setLoading(true);
    load();
  }, [load]);
  return { snapshot, loading, refresh };
}
