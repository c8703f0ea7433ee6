import { loadable } from '../../../components/loadable';
import type { EChartProps } from './EChart';

/**
 * An ECharts chart whose code (about 590 KB of script) is fetched with the first chart drawn, not with the page
 * that holds it: a report's charts come after its table's first rows anyway (useAfterFirstRows), so the page's own
 * code before those rows is a quarter lighter (performance target: a report's first rows <= 1 s). Until the code is
 * in, an empty box of the chart's height keeps the layout still.
 */
export const LoadedEChart = loadable<EChartProps>(
  () => import('./EChart').then((module) => module.default),
  ({ height = 300 }) => <div style={{ height }} />,
);
