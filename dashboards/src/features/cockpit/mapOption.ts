/** The cockpit map's ECharts option, pure: provinces shaded by vehicles, vehicles as points coloured by
 * state, alarming vehicles rippling: for ever, or, for a user who asked the system for less motion
 * (`prefers-reduced-motion`, WCAG 2.3.3), only while the pointer is on one. */
import { stateColour } from '../../live/bizState';
import type { MapPoint } from './useCockpit';

export const CHINA_MAP = 'china';

export function fleetMapOption(points: readonly MapPoint[], perProvince: Record<string, number>, labels: { vehicles: string; alarm: string },
  reducedMotion = false) {
  const max = Math.max(1, ...Object.values(perProvince));
  const normal = points.filter((p) => !p.alarm);
  const alarming = points.filter((p) => p.alarm);
  return {
    animation: false,
    tooltip: { trigger: 'item' as const },
    geo: {
      map: CHINA_MAP,
      roam: true,
      zoom: 1.15,
      top: 40,
      bottom: 20,
      itemStyle: { areaColor: '#0b2a4a', borderColor: '#3a8ee6', borderWidth: 1 },
      emphasis: { itemStyle: { areaColor: '#1c4e80' }, label: { color: '#fff' } },
      label: { show: false },
    },
    visualMap: {
      min: 0, max, seriesIndex: 0, left: 16, bottom: 16, calculable: false, itemHeight: 90,
      text: [String(max), '0'], textStyle: { color: '#c9d1e0' }, inRange: { color: ['#0b2a4a', '#1668b8', '#3fb1e3'] },
    },
    series: [
      { type: 'map' as const, geoIndex: 0, name: labels.vehicles,
        data: Object.entries(perProvince).map(([name, value]) => ({ name, value })) },
      { type: 'scatter' as const, coordinateSystem: 'geo' as const, name: labels.vehicles, symbolSize: 5,
        data: normal.map((p) => ({ name: p.plate, value: [p.lng, p.lat], itemStyle: { color: stateColour(p.bizState) } })) },
      { type: 'effectScatter' as const, coordinateSystem: 'geo' as const, name: labels.alarm, symbolSize: 8,
        showEffectOn: reducedMotion ? 'emphasis' as const : 'render' as const,
        rippleEffect: { scale: 4, brushType: 'stroke' as const }, itemStyle: { color: '#f5222d' },
        data: alarming.map((p) => ({ name: p.plate, value: [p.lng, p.lat] })) },
    ],
  };
}
