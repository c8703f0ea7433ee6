/** The matches of the search box: the loaded rows at once, the server's after a short pause in typing. */
import { useEffect, useMemo, useState } from 'react';
import type { TreeModel } from '../tree/treeModel';
import { matchLocally, mergeMatches, normalise, searchCars, type ServerMatch, type VehicleMatch } from '../tree/vehicleSearch';

const SERVER_DELAY_MS = 300;

/** null while the box is empty; else vehicle key → what matched. */
export function useVehicleSearch(model: TreeModel | null, query: string): Map<string, VehicleMatch> | null {
  const needle = normalise(query);
  const [server, setServer] = useState<{ needle: string; rows: ServerMatch[] }>({ needle: '', rows: [] });
  useEffect(() => {
    if (!needle) return undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      void searchCars(needle, controller.signal).then((rows) => {
        if (!controller.signal.aborted) setServer({ needle, rows });
      });
    }, SERVER_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [needle]);
  return useMemo(() => {
    if (!needle || !model) return null;
    const local = matchLocally(model, needle);
    return server.needle === needle ? mergeMatches(model, local, server.rows) : local;
  }, [model, needle, server]);
}
