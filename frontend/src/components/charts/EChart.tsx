import { BarChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import EChartsReactCore from 'echarts-for-react/esm/core';
import type { ChartOption } from '@/lib/chart-options';

// Only what the app draws: bars and lines, as SVG (crisp, and readable by tests).
echarts.use([BarChart, LineChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

type EChartProps = {
  option: ChartOption;
  /** What the chart shows, for screen readers (the same data is also in a table or in numbers). */
  label: string;
  height?: number;
  testId?: string;
};

/** An ECharts chart; import it lazily so that ECharts loads only with the screens that draw. */
export default function EChart({ option, label, height = 280, testId }: EChartProps) {
  return (
    <div role="img" aria-label={label} data-testid={testId ?? 'chart'}>
      <EChartsReactCore echarts={echarts} option={option} notMerge style={{ height, width: '100%' }} opts={{ renderer: 'svg' }} />
    </div>
  );
}
