import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import type { ReportDetail } from '@/api/generated/model';
import { jsonResponse, makeReportDetail, makeUser } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const author = makeUser('DepartmentUser', { id: 'author', fullName: 'Ada Author' });
const dept = author.departmentId!;
const stored = makeReportDetail(author, {
  id: 'r1',
  title: 'Q1',
  content: 'Numbers',
  periodStart: '2026-01-01',
  periodEnd: '2026-03-31',
  status: 'rejected',
  data: { columns: ['Region', 'Revenue'], rows: [['North', 120]] },
  updatedAt: '2026-04-02T10:00:00Z',
  reviewNotes: 'Check North',
});

beforeEach(() => session.start('token', author));

describe('the report form', () => {
  it('checks the fields, then creates a draft with its table (numbers as numbers, blanks as null)', { timeout: 45_000 }, async () => {
    const draft = { ...stored, status: 'draft', reviewNotes: null } satisfies ReportDetail;
    const { calls } = mockApi({
      [`POST /api/v1/departments/${dept}/reports`]: () => jsonResponse(201, draft),
      // The new report opens once created.
      [`GET /api/v1/reports/${draft.id}`]: () => jsonResponse(200, draft),
    });
    const user = userEvent.setup();
    renderApp(`/department/${dept}/reports/create`);
    const save = await screen.findByRole('button', { name: 'Save as Draft' });
    await user.click(save);
    expect(await screen.findAllByText('This field is required')).toHaveLength(4);

    await user.type(screen.getByLabelText(/^Title/), 'Q1');
    await user.type(screen.getByLabelText(/^Content/), 'Numbers');
    await user.type(screen.getByLabelText(/^Period start/), '2026-03-01');
    await user.type(screen.getByLabelText(/^Period end/), '2026-01-31');
    await user.click(save);
    expect(await screen.findByText('The period end must be on or after the period start')).toBeInTheDocument();
    await user.clear(screen.getByLabelText(/^Period end/));
    await user.type(screen.getByLabelText(/^Period end/), '2026-03-31');

    await user.click(screen.getByRole('button', { name: 'Add column' }));
    await user.click(screen.getByRole('button', { name: 'Add column' }));
    await user.click(screen.getByRole('button', { name: 'Add row' }));
    await user.click(screen.getByRole('button', { name: 'Add row' }));
    await user.click(save);
    expect(await screen.findAllByText('This field is required')).toHaveLength(2); // unnamed columns
    await user.type(screen.getByLabelText('Column 1 name'), 'Region');
    await user.type(screen.getByLabelText('Column 2 name'), 'Revenue');
    await user.type(screen.getByLabelText('Row 1, Region'), 'North');
    await user.type(screen.getByLabelText('Row 1, Revenue'), '120.5');
    await user.type(screen.getByLabelText('Row 2, Region'), 'South');
    await user.click(save);

    expect(await screen.findByText('Report created successfully')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'Q1' })).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      title: 'Q1',
      content: 'Numbers',
      periodStart: '2026-03-01',
      periodEnd: '2026-03-31',
      status: 'draft',
      data: {
        columns: ['Region', 'Revenue'],
        rows: [
          ['North', 120.5],
          ['South', null],
        ],
      },
    });
  });

  it('shows the review notes of a rejected report and resubmits it', async () => {
    const { calls } = mockApi({
      'GET /api/v1/reports/r1': () => jsonResponse(200, stored),
      'PUT /api/v1/reports/r1': () => jsonResponse(200, { ...stored, status: 'submitted' } satisfies ReportDetail),
    });
    const user = userEvent.setup();
    renderApp(`/department/${dept}/reports/r1/edit`);
    expect(await screen.findByText('Check North')).toBeInTheDocument();
    expect(screen.getByText(/Saving your changes returns it to draft/)).toBeInTheDocument();
    const cell = screen.getByLabelText('Row 1, Revenue');
    await user.clear(cell);
    await user.type(cell, '130');
    await user.click(screen.getByRole('button', { name: 'Submit Report' }));
    expect(await screen.findByText('Report updated successfully')).toBeInTheDocument();
    await waitFor(() =>
      expect(calls.find((call) => call.method === 'PUT')?.body).toMatchObject({
        status: 'submitted',
        data: { columns: ['Region', 'Revenue'], rows: [['North', 130]] },
      }),
    );
  });

  it('refuses text in a number column at its cell, and saves once it is a number', async () => {
    const { calls } = mockApi({
      'GET /api/v1/reports/r1': () => jsonResponse(200, stored),
      'PUT /api/v1/reports/r1': () => jsonResponse(200, { ...stored, status: 'draft' } satisfies ReportDetail),
    });
    const user = userEvent.setup();
    renderApp(`/department/${dept}/reports/r1/edit`);
    await screen.findByText('Check North');
    await user.click(screen.getByRole('button', { name: 'Add row' }));
    await user.type(screen.getByLabelText('Row 2, Region'), 'South');
    await user.type(screen.getByLabelText('Row 2, Revenue'), 'abc');
    await user.click(screen.getByRole('button', { name: 'Save as Draft' }));
    expect(await screen.findByText('Enter a number, such as 1,250.50: this column holds numbers')).toBeInTheDocument();
    expect(screen.getByLabelText('Row 2, Revenue')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Row 2, Region')).not.toHaveAttribute('aria-invalid', 'true');
    expect(calls.some((call) => call.method === 'PUT')).toBe(false);

    const cell = screen.getByLabelText('Row 2, Revenue');
    await user.clear(cell);
    await user.type(cell, '80');
    expect(screen.queryByText('Enter a number, such as 1,250.50: this column holds numbers')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save as Draft' }));
    await waitFor(() =>
      expect(calls.find((call) => call.method === 'PUT')?.body).toMatchObject({
        data: {
          columns: ['Region', 'Revenue'],
          rows: [
            ['North', 120],
            ['South', 80],
          ],
        },
      }),
    );
  });

  it('writes and reads the period in the interface language (dd/mm/yyyy in French) and sends ISO dates', async () => {
    await changeLocale('fr');
    const { calls } = mockApi({
      'GET /api/v1/reports/r1': () => jsonResponse(200, { ...stored, status: 'draft', reviewNotes: null } satisfies ReportDetail),
      'PUT /api/v1/reports/r1': () => jsonResponse(200, stored),
    });
    const user = userEvent.setup();
    renderApp(`/department/${dept}/reports/r1/edit`);
    const start = await screen.findByLabelText(/^Début de période/);
    const end = screen.getByLabelText(/^Fin de période/);
    expect(start).toHaveValue('01/01/2026');
    expect(end).toHaveValue('31/03/2026');
    expect(start).toHaveAttribute('placeholder', 'JJ/MM/AAAA');

    await user.clear(start);
    await user.type(start, '15/01/2026');
    await user.click(screen.getByRole('button', { name: 'Enregistrer comme brouillon' }));
    await waitFor(() => expect(calls.find((call) => call.method === 'PUT')?.body).toMatchObject({ periodStart: '2026-01-15', periodEnd: '2026-03-31' }));
  });

  it('shows a not-found state in another department', async () => {
    mockApi({});
    renderApp('/department/someone-else/reports/create');
    expect(await screen.findByText('Department not found')).toBeInTheDocument();
  });
});
