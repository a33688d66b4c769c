import { describe, expect, it } from 'vitest';
import { dailyOption, reportBarOption, stackedStatusOption, statusBarOption } from './chart-options';

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
