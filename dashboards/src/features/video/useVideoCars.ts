/** The video vehicles (channel tree rows) and the one online rule for their devices. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { LiveHub } from '../../live/LiveHub';
import { isVehicleOnline, stateOfDevice } from '../../live/vehicleStates';
import { channelTree, fetchVideoCars, type ChannelNode, type VideoCarRow } from './channelTree';

export function useVideoCars(hub: LiveHub | null) {
  const [rows, setRows] = useState<VideoCarRow[] | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void fetchVideoCars(controller.signal).then((list) => {
      if (controller.signal.aborted) return;
      // The rows' device state seeds the one state store (pushes 1 and 6 keep it current).
      hub?.states.seed(list.flatMap((r) => (r.masterDeviceId === null ? [] : [[r.masterDeviceId, stateOfDevice(r.masterDeviceState, r.masterDeviceBizState)] as const])));
      setRows(list);
    });
    return () => controller.abort();
  }, [hub]);
  // Re-render on state pushes (1, 6): the tree greys offline vehicles.
  const [version, setVersion] = useState(0);
  useEffect(() => (hub ? hub.states.subscribe(() => setVersion((v) => v + 1)) : undefined), [hub]);
  const nodes: ChannelNode[] | null = useMemo(() => (rows ? channelTree(rows) : null), [rows]);
  const online = useCallback((deviceId: number) => {
    const state = hub?.states.get(deviceId);
    if (state) return isVehicleOnline(state);
    const row = rows?.find((r) => r.masterDeviceId === deviceId);
    return row ? isVehicleOnline(stateOfDevice(row.masterDeviceState, row.masterDeviceBizState)) : false;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- version: a state push changed the answer
  }, [hub, rows, version]);
  return { rows, nodes, online };
}
