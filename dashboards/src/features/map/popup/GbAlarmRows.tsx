/** The track point popup's rows of a GB alarm object (gbAlarm.ts): level, each non-empty fault list with its
 * codes, the MIL. Nothing for a point without one. */
import { useTranslation } from 'react-i18next';
import { gbAlarmView } from './gbAlarm';

export function GbAlarmRows({ item }: { item: Record<string, unknown> | null | undefined }) {
  const { t } = useTranslation('obd');
  const view = gbAlarmView(item);
  if (!view) return null;
  const rows: [string, string, string][] = [];
  if (view.level !== null) rows.push(['level', t('trackAlarm.level'), t('trackAlarm.levelValue', { level: view.level })]);
  for (const list of view.lists) rows.push([list.name, t(`trackAlarm.${list.name}`), list.codes.join(', ')]);
  if (view.mil) rows.push(['mil', t('trackAlarm.title'), t('trackAlarm.mil')]);
  return (
    <div data-testid="track-gb-alarm">
      {rows.map(([name, label, value]) => (
        <div className="fw-popup-row" key={name}>
          <span className="fw-popup-label">{label}</span>
          <span className="fw-popup-value" data-testid={`track-gb-${name}`}>{value}</span>
        </div>
      ))}
    </div>
  );
}
