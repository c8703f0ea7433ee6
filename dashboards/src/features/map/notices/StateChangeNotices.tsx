/**
 * Vehicle state notices on the live map (console-spec §7 pushes 1 and 6): the plate and the new state of
 * each ticked vehicle that comes online, goes offline or changes its running state, only while the
 * enterprise switch carStateChangeWindowEnable (console-spec §3, screen /setting/messageNotifyRule) is on.
 * One window holds the latest few changes, newest first (a fleet's worth of ticked vehicles changing state
 * would otherwise stack windows over the map); a vehicle's newer change replaces its older line.
 */
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNotice } from '../../../components/notices/useNotice';
import type { LiveHub } from '../../../live/LiveHub';
import type { NotifySettings } from '../../alarm/api';
import { switchOn } from '../../alarm/notifyRules';
import { useNotifySettings } from '../../alarm/useNotifySettings';
import type { TickedVehicle } from '../hooks/useTicked';
import { stateNotice, type StateNotice } from './stateNotice';

const SHOWN_S = 6;
export const MAX_LINES = 3;
const KEY = 'vehicle-state';

export default function StateChangeNotices({ hub, vehicles }: { hub: Pick<LiveHub, 'onPush'> | null; vehicles: readonly TickedVehicle[] }) {
  return <StateChangeNoticesOf hub={hub} vehicles={vehicles} settings={useNotifySettings()} />;
}

/** The notices of a given hub's pushes, for the map page and for tests. */
export function StateChangeNoticesOf({ hub, vehicles, settings }: {
  hub: Pick<LiveHub, 'onPush'> | null;
  vehicles: readonly TickedVehicle[];
  settings: NotifySettings | null;
}) {
  const notify = useNotice();
  const { t } = useTranslation('map');
  const ticked = useMemo(() => new Map(vehicles.map((v) => [v.deviceId, v.plate])), [vehicles]);
  const latest = useRef({ ticked, settings });
  const lines = useRef<StateNotice[]>([]);
  useEffect(() => {
    latest.current = { ticked, settings };
  });
  useEffect(() => {
    if (!hub) return undefined;
    return hub.onPush((push) => {
      if (!switchOn(latest.current.settings, 'carStateChange')) return;
      const notice = stateNotice(push, latest.current.ticked);
      if (!notice) return;
      lines.current = [notice, ...lines.current.filter((l) => l.deviceId !== notice.deviceId)].slice(0, MAX_LINES);
      const stateOf = (l: StateNotice) => (l.change === 'bizState' ? t(`bizState.${l.bizState}`) : t(`stateNotice.${l.change}`));
      notify({
        level: 'info',
        key: KEY,
        title: t('stateNotice.title'),
        description: (
          <div data-testid="state-notices">
            {lines.current.map((l) => (
              <div key={l.deviceId} data-testid="state-notice" data-device-id={l.deviceId} data-change={l.change}>
                {t('stateNotice.line', { plate: l.plate, state: stateOf(l) })}
              </div>
            ))}
          </div>
        ),
        duration: SHOWN_S,
        onClose: () => {
          lines.current = [];
        },
      });
    });
  }, [hub, notify, t]);
  return null;
}
