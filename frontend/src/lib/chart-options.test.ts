import { describe, expect, it } from 'vitest';
import { localized } from '@/components/charts/localized';
import { dailyOption, durationBarOption, durationStep, reportBarOption, stackedStatusOption, statusBarOption } from './chart-options';

describe('durationStep', () => {
  it('puts the ticks of a duration axis at round steps of time, at most five', () => {
    // 1 hr 6 min fell on ticks of 33 min before.
    expect(durationStep(66 * 60)).toBe(900);
    expect(durationStep(0)).toBe(60);
    expect(durationStep(4 * 60)).toBe(60);
    expect(durationStep(9 * 60)).toBe(120);
    expect(durationStep(3 * 3600)).toBe(3600);
    expect(durationStep(5 * 86400)).toBe(86400);
    expect(durationStep(400 * 86400)).toBe(80 * 86400);
    const option = durationBarOption([{ label: 'Ann', seconds: 66 * 60 }], String);
    expect(option.xAxis).toMatchObject({ interval: 900, max: 4500 });
  });
});

describe('localized', () => {
  const french = (value: number) => new Intl.NumberFormat('fr').format(value);
  const label = (axis: unknown) => (axis as { axisLabel: { formatter: (value: number) => string } }).axisLabel.formatter(1500.5);

  it('writes the value axes and the tooltip in the interface language', () => {
    const option = localized(stackedStatusOption([{ label: 'Finance', reports: { submitted: 1500, reviewed: 0, approved: 0, rejected: 0 } }], String), french);
    expect(label(option.xAxis)).toBe('1\u202f500,5');
    expect((option.yAxis as { type: string; axisLabel?: unknown }).axisLabel).toEqual({ interval: 0 });
    expect((option.tooltip as { valueFormatter: (value: unknown) => string }).valueFormatter(2500)).toBe('2\u202f500');
    const english = localized(dailyOption(['2026-01-01'], [{ name: 'a', data: [1] }]), (value) => new Intl.NumberFormat('en').format(value));
    expect(label(english.yAxis)).toBe('1,500.5');
  });

  it('keeps a formatter an axis has', () => {
    const option = localized(
      durationBarOption([{ label: 'Ann', seconds: 60 }], () => '1 min'),
      french,
    );
    expect(label(option.xAxis)).toBe('1 min');
  });
});

describe('reportBarOption', () => {
  it('uses the first column as categories and every numeric column as a series', () => {
    const option = reportBarOption({
      columns: ['Region', 'Revenue', 'Note', 'Costs'],
      rows: [
        ['North', 120, 'ok', 80],
        ['South', null, 'late', '—'],
      ],
    });
    expect(option?.xAxis).toEqual({ type: 'category', data: ['North', 'South'] });
    expect(option?.series).toEqual([
      { type: 'bar', name: 'Revenue', data: [120, null] },
      { type: 'bar', name: 'Costs', data: [80, null] },
    ]);
  });

  it('has nothing to chart without numbers, rows or a second column', () => {
    expect(reportBarOption(null)).toBeNull();
    expect(reportBarOption({ columns: ['A'], rows: [[1]] })).toBeNull();
    expect(reportBarOption({ columns: ['A', 'B'], rows: [] })).toBeNull();
    expect(reportBarOption({ columns: ['A', 'B'], rows: [['x', 'y']] })).toBeNull();
  });
});

describe('the dashboard charts', () => {
  it('draws one coloured bar per status', () => {
    const option = statusBarOption([{ status: 'draft', label: 'Draft', value: 2 }]);
    expect(option.series).toEqual([{ type: 'bar', data: [{ value: 2, itemStyle: { color: '#868e96' } }] }]);
  });

  it('stacks the statuses per department', () => {
    const option = stackedStatusOption([{ label: 'Finance', reports: { submitted: 1, reviewed: 2, approved: 3, rejected: 4 } }], (s) => s.toUpperCase());
    const series = option.series as { name: string; stack: string; data: number[] }[];
    expect(series.map((s) => [s.name, s.stack, s.data])).toEqual([
      ['SUBMITTED', 'reports', [1]],
      ['REVIEWED', 'reports', [2]],
      ['APPROVED', 'reports', [3]],
      ['REJECTED', 'reports', [4]],
    ]);
  });

  it('lays the departments on the category axis, one under the other, every name drawn (none skipped for room)', () => {
    const names = ['Finance', 'Opérations', 'Ventes et marketing', 'Ressources humaines', 'Informatique'];
    const none = { submitted: 0, reviewed: 0, approved: 0, rejected: 0 };
    const option = stackedStatusOption(
      names.map((label) => ({ label, reports: none })),
      (s) => s,
    );
    expect(option.yAxis).toMatchObject({ type: 'category', data: names, axisLabel: { interval: 0 } });
    expect(option.xAxis).toMatchObject({ type: 'value' });
  });

  it('draws daily lines that never dip below zero (no smoothing, an axis from zero), or stacked bars', () => {
    const line = dailyOption(['d1', 'd2', 'd3'], [{ name: 'a', data: [0, 9, 0] }]);
    expect((line.series as object[])[0]).toMatchObject({ type: 'line', smooth: false });
    expect(line.yAxis).toMatchObject({ min: 0 });
    expect((dailyOption(['d1'], [{ name: 'a', data: [1] }], 'bar').series as object[])[0]).toMatchObject({ type: 'bar', stack: 'total' });
  });
});
