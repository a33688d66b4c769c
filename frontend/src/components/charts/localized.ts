import type { ChartOption } from '@/lib/chart-options';

/**
 * The option with its numbers in the interface language: every value axis without a formatter of
 * its own labels its ticks with `number` (ECharts' own "1,500" would stand beside the table's
 * "1 500" in French), and the tooltip says values the same way.
 */
export function localized(option: ChartOption, number: (value: number) => string): ChartOption {
  const axes = (axis: unknown): unknown => {
    if (Array.isArray(axis)) return axis.map(axes);
    if (!axis || typeof axis !== 'object') return axis;
    const { type, axisLabel } = axis as { type?: string; axisLabel?: Record<string, unknown> };
    if (type !== 'value' || axisLabel?.formatter) return axis;
    return { ...axis, axisLabel: { ...axisLabel, formatter: (value: number) => number(value) } };
  };
  const tooltip = option.tooltip as Record<string, unknown> | undefined;
  return {
    ...option,
    ...(option.xAxis ? { xAxis: axes(option.xAxis) } : {}),
    ...(option.yAxis ? { yAxis: axes(option.yAxis) } : {}),
    ...(tooltip && !tooltip.valueFormatter
      ? { tooltip: { ...tooltip, valueFormatter: (value: unknown) => (typeof value === 'number' ? number(value) : String(value ?? '')) } }
      : {}),
  };
}
