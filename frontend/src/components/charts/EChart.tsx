import { BarChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import EChartsReactCore from 'echarts-for-react/esm/core';
import { useMemo } from 'react';
import type { ChartOption } from '@/lib/chart-options';
import { localized } from './localized';

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
  // The interface language, as i18n/index.ts keeps it on <html lang> (no i18n import here: this
  // chunk loads with the charts, and the sign-in page's budget counts every shared module).
  const locale = document.documentElement.lang || 'en';
  // Numbers as the rest of the screen writes them, in the interface language.
  const shown = useMemo(() => {
    const numbers = new Intl.NumberFormat(locale);
    return localized(option, (value) => numbers.format(value));
  }, [option, locale]);
  return (
    <div role="img" aria-label={label} data-testid={testId ?? 'chart'}>
      <EChartsReactCore echarts={echarts} option={shown} notMerge style={{ height, width: '100%' }} opts={{ renderer: 'svg' }} />
    </div>
  );
}
