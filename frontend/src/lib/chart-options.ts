import type { ReportData, StatusCounts } from '@/api/generated/model';

/** The subset of an ECharts option these builders produce (kept loose: ECharts' own type is huge). */
export type ChartOption = Record<string, unknown>;

export const REVIEW_STATUSES = ['submitted', 'reviewed', 'approved', 'rejected'] as const satisfies readonly (keyof StatusCounts)[];

/** Mantine palette colours of the status badges, for the charts. */
export const STATUS_CHART_COLORS: Record<string, string> = {
  draft: '#868e96',
  submitted: '#228be6',
  reviewed: '#7950f2',
  approved: '#40c057',
  rejected: '#fa5252',
};

const base = { tooltip: { trigger: 'axis' }, grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true } };

/**
 * A report's table as a bar chart: the first column gives the categories, every other column
 * holding at least one number becomes a series. Null when there is nothing to chart.
 */
export function reportBarOption(data: ReportData | null | undefined): ChartOption | null {
  if (!data || data.columns.length < 2 || data.rows.length === 0) return null;
  const numeric = data.columns
    .map((name, index) => ({ name, index }))
    .slice(1)
    .filter(({ index }) => data.rows.some((row) => typeof row[index] === 'number'));
  if (numeric.length === 0) return null;
  return {
    ...base,
    legend: { top: 0 },
    xAxis: { type: 'category', data: data.rows.map((row) => (row[0] === null || row[0] === undefined ? '' : String(row[0]))) },
    yAxis: { type: 'value' },
    series: numeric.map(({ name, index }) => ({
      type: 'bar',
      name,
      data: data.rows.map((row) => (typeof row[index] === 'number' ? row[index] : null)),
    })),
  };
}

/** One bar per status (labels already translated). */
export function statusBarOption(counts: { status: string; label: string; value: number }[]): ChartOption {
  return {
    ...base,
    grid: { ...base.grid, top: 8 },
    xAxis: { type: 'category', data: counts.map((c) => c.label) },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      {
        type: 'bar',
        data: counts.map((c) => ({ value: c.value, itemStyle: { color: STATUS_CHART_COLORS[c.status] } })),
      },
    ],
  };
}

/**
 * Stacked bars, one per department and one segment per status, lying down: the departments'
 * names stand one under the other on the category axis, each whole and readable in any language,
 * however narrow the chart.
 */
export function stackedStatusOption(departments: { label: string; reports: StatusCounts }[], statusLabel: (status: keyof StatusCounts) => string): ChartOption {
  return {
    ...base,
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: { top: 0 },
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: { type: 'category', inverse: true, data: departments.map((d) => d.label), axisLabel: { interval: 0 } },
    series: REVIEW_STATUSES.map((status) => ({
      type: 'bar',
      stack: 'reports',
      barMaxWidth: 28,
      name: statusLabel(status),
      itemStyle: { color: STATUS_CHART_COLORS[status] },
      data: departments.map((d) => d.reports[status]),
    })),
  };
}

/**
 * Daily series on a shared date axis; `kind` picks line or bar. Counts never go below zero, and
 * neither does the chart: straight lines (a smoothed curve overshoots between a peak and zeros)
 * on an axis that starts at zero.
 */
export function dailyOption(dates: string[], series: { name: string; data: number[]; color?: string }[], kind: 'line' | 'bar' = 'line'): ChartOption {
  return {
    ...base,
    ...(series.length > 1 ? { legend: { top: 0 } } : { grid: { ...base.grid, top: 16 } }),
    xAxis: { type: 'category', data: dates },
    yAxis: { type: 'value', min: 0, minInterval: 1 },
    series: series.map(({ name, data, color }) => ({
      type: kind,
      name,
      data,
      ...(kind === 'bar' ? { stack: 'total' } : { smooth: false }),
      ...(color ? { itemStyle: { color } } : {}),
    })),
  };
}

/** Steps of time a clock reader counts in: minutes, quarters, hours, days. */
const DURATION_STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 432000, 864000];

/** The smallest round step of time that cuts `0..max` seconds into at most five ticks. */
export function durationStep(max: number): number {
  return DURATION_STEPS.find((step) => Math.ceil(max / step) <= 5) ?? Math.ceil(max / 5 / 86400) * 86400;
}

/**
 * Horizontal bars of a duration per row (active time per user): `seconds` on the value axis,
 * shown through `duration` (already in the interface language), the rows top to bottom.
 */
export function durationBarOption(rows: { label: string; seconds: number }[], duration: (seconds: number) => string, color = '#228be6'): ChartOption {
  const step = durationStep(Math.max(0, ...rows.map((row) => row.seconds)));
  return {
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (value: number) => duration(value) },
    grid: { left: 8, right: 24, top: 8, bottom: 8, containLabel: true },
    // Ticks at a round step of time (15 min, 1 h…), not where a decimal scale falls (33 min).
    xAxis: {
      type: 'value',
      interval: step,
      max: Math.max(step, Math.ceil(Math.max(0, ...rows.map((row) => row.seconds)) / step) * step),
      axisLabel: { formatter: (value: number) => duration(value) },
    },
    yAxis: { type: 'category', inverse: true, data: rows.map((row) => row.label) },
    series: [{ type: 'bar', barMaxWidth: 24, itemStyle: { color }, data: rows.map((row) => row.seconds) }],
  };
}
