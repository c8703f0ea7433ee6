/**
 * A full-screen cockpit for a wall display: laid out at 1920 × 1080 and scaled to whatever
 * screen it is on; the fleet's figures live, the map of China with the vehicles, today's mileage and alarm
 * trends against the last 30 days, top vehicles and enterprises, the safety ranking. The new-energy variant
 * shows the vehicles of type 2, with how many charge now and their mean state of charge (GB/T 32960 states).
 */
import dayjs from 'dayjs';
import { useEffect, useMemo, useState, type CSSProperties, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { stateColour } from '../../live/bizState';
import EChart from '../report/charts/EChart';
import { dayLabels, rankingOption, shareOption, trendOption } from '../report/charts/options';
import FleetMap from './FleetMap';
import { BOARD_HEIGHT, BOARD_WIDTH, boardScale } from './model';
import { useCockpit, type CockpitVariant } from './useCockpit';
import './cockpit.css';

/** The scale that fits the board to the window, following resizes. */
function useBoardScale() {
  const [size, setSize] = useState({ width: window.innerWidth, height: window.innerHeight });
  useEffect(() => {
    const resize = () => setSize({ width: window.innerWidth, height: window.innerHeight });
    window.addEventListener('resize', resize);
    return () => window.removeEventListener('resize', resize);
  }, []);
  return boardScale(size.width, size.height);
}

function useClock(): string {
  const [now, setNow] = useState(() => dayjs());
  useEffect(() => {
    const timer = setInterval(() => setNow(dayjs()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now.format('YYYY-MM-DD HH:mm:ss');
}

function Panel({ title, children, style, testId }: { title: string; children: ReactNode; style?: CSSProperties; testId?: string }) {
  return (
    <section className="fw-cockpit-panel" style={style} data-testid={testId}>
      <h3>{title}</h3>
      <div className="fw-cockpit-panel-body">{children}</div>
    </section>
  );
}

function Figure({ name, label, value, unit, colour }: { name: string; label: string; value: number | string; unit?: string; colour?: string }) {
  return (
    <div className="fw-cockpit-figure">
      <div className="fw-cockpit-figure-value" style={{ color: colour }} data-testid={`cockpit-figure-${name}`} data-value={value}>
        {value}<small>{unit}</small>
      </div>
      <div className="fw-cockpit-figure-label">{label}</div>
    </div>
  );
}

/** Marks the first paint of the map (benchmarks/cockpit_bench.py reads it). */
function markPainted() {
  performance.mark('fleetwatch:cockpit-painted');
  document.body.dataset.cockpitPainted = String(Math.round(performance.now()));
}

export default function CockpitBoard({ variant }: { variant: CockpitVariant }) {
  const { t } = useTranslation('cockpit');
  const data = useCockpit(variant);
  const { scale, left, top } = useBoardScale();
  const clock = useClock();
  const f = data.figures;
  const onlineRate = f.total > 0 ? Math.round((f.online / f.total) * 1000) / 10 : 0;

  const charts = useMemo(() => {
    const labels = dayLabels(data.trend.days);
    return {
      states: shareOption([
        { name: t('driving'), value: f.driving, colour: stateColour(1) }, { name: t('parked'), value: f.parked, colour: stateColour(2) },
        { name: t('engineOff'), value: f.engineOff, colour: stateColour(3) }, { name: t('offline'), value: f.offline, colour: stateColour(0) },
        { name: t('noSignal'), value: Math.max(0, f.online - f.driving - f.parked - f.engineOff), colour: stateColour(4) },
      ], t('vehicles'), { dark: true }),
      km: trendOption({ categories: labels, dark: true, units: [t('km')], series: [{ name: t('mileage'), data: data.trend.km, type: 'line', area: true, colour: '#3fb1e3' }] }),
      alarms: data.trend.alarms ? trendOption({ categories: labels, dark: true, series: [{ name: t('alarms'), data: data.trend.alarms, colour: '#f5222d' }] }) : null,
      topToday: rankingOption(data.topToday, t('mileage'), { dark: true, colour: '#52c41a', unit: t('km') }),
      topEnterprises: rankingOption(data.topEnterprises, t('mileage'), { dark: true, colour: '#3fb1e3', unit: t('km') }),
      safety: rankingOption(data.safety, t('alarms'), { dark: true, colour: '#fa8c16' }),
    };
  }, [data, f, t]);

  const title = variant === 'nev' ? t('titleNev') : t('title');
  return (
    <div className="fw-cockpit" data-testid={variant === 'nev' ? 'cockpit-nev1-index' : 'cockpit-index'} data-ready={data.ready}>
      <div className="fw-cockpit-board" style={{ width: BOARD_WIDTH, height: BOARD_HEIGHT, transform: `scale(${scale})`, left, top }}>
        <header className="fw-cockpit-header">
          <h1>{title}</h1>
          <span className="fw-cockpit-live" data-testid="cockpit-live" data-status={data.liveStatus}>
            <i style={{ background: data.liveStatus === 'connected' ? '#52c41a' : '#faad14' }} />
            {t(`live.${data.liveStatus}`, { defaultValue: data.liveStatus })}
          </span>
          <span className="fw-cockpit-clock">{clock}</span>
        </header>
        <div className="fw-cockpit-columns">
          <div className="fw-cockpit-column">
            <Panel title={t('fleetNow')} style={{ height: 250 }} testId="cockpit-figures">
              <div className="fw-cockpit-figures">
                <Figure name="total" label={t('total')} value={f.total} />
                <Figure name="online" label={t('online')} value={f.online} colour="#52c41a" />
                <Figure name="onlineRate" label={t('onlineRate')} value={onlineRate} unit="%" />
                <Figure name="driving" label={t('driving')} value={f.driving} colour="#3fb1e3" />
                <Figure name="offline" label={t('offline')} value={f.offline} colour="#8c8c8c" />
                <Figure name="alarming" label={t('alarmingNow')} value={f.alarming} colour="#f5222d" />
              </div>
            </Panel>
            <Panel title={t('states')} style={{ height: 300 }}><EChart option={charts.states} height="100%" testId="cockpit-chart-states" /></Panel>
            <Panel title={t('topToday')} style={{ height: 396 }}>
              {data.topToday.length ? <EChart option={charts.topToday} height="100%" testId="cockpit-chart-top-today" />
                : <div className="fw-cockpit-empty">{t('noneYet')}</div>}
            </Panel>
          </div>
          <div className="fw-cockpit-column fw-cockpit-centre">
            <div className="fw-cockpit-strip">
              <Figure name="todayKm" label={t('todayKm')} value={Math.round(data.todayKm)} unit={t('km')} colour="#3fb1e3" />
              {variant === 'fleet' ? (
                <>
                  <Figure name="alarmsToday" label={t('alarmsToday')} value={data.alarmsToday ?? '-'} colour="#f5222d" />
                  <Figure name="alarmingVehicles" label={t('alarmingVehicles')} value={data.alarms?.alarmingVehicles ?? '-'} colour="#fa8c16" />
                  <Figure name="unhandled" label={t('unhandled')} value={data.unhandled ?? '-'} colour="#faad14" />
                </>
              ) : (
                <>
                  <Figure name="charging" label={t('charging')} value={data.nev?.charging ?? '-'} colour="#52c41a" />
                  <Figure name="soc" label={t('soc')} value={data.nev?.soc ?? '-'} unit={data.nev?.soc != null ? '%' : undefined} colour="#3fb1e3" />
                </>
              )}
            </div>
            <div className="fw-cockpit-map"><FleetMap points={data.points} onPainted={markPainted} /></div>
          </div>
          <div className="fw-cockpit-column">
            <Panel title={t('kmTrend')} style={{ height: 250 }}><EChart option={charts.km} height="100%" testId="cockpit-chart-km" /></Panel>
            {charts.alarms ? (
              <Panel title={t('alarmTrend')} style={{ height: 230 }}><EChart option={charts.alarms} height="100%" testId="cockpit-chart-alarms" /></Panel>
            ) : null}
            {variant === 'fleet' ? (
              <Panel title={t('topEnterprises')} style={{ height: 200 }}><EChart option={charts.topEnterprises} height="100%" testId="cockpit-chart-enterprises" /></Panel>
            ) : null}
            <Panel title={t('safety')} style={{ height: variant === 'fleet' ? 250 : 680 }}>
              {data.safety.length ? <EChart option={charts.safety} height="100%" testId="cockpit-chart-safety" />
                : <div className="fw-cockpit-empty">{t('noneYet')}</div>}
            </Panel>
          </div>
        </div>
      </div>
    </div>
  );
}
