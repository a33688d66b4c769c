import { describe, expect, it } from 'vitest';
import { filenameFrom } from './download';

describe('filenameFrom', () => {
  it('reads plain and encoded names', () => {
    expect(filenameFrom('attachment; filename="q1.xlsx"', 'x')).toBe('q1.xlsx');
    expect(filenameFrom('attachment; filename="a.pdf"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.pdf', 'x')).toBe('résumé.pdf');
    expect(filenameFrom(null, 'report.csv')).toBe('report.csv');
  });
});
