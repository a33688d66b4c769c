import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Spreadsheet, SpreadsheetSummary } from '@/api/generated/model';
import { renderApp } from '@/app/testing';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeDepartments, makeUser, page, serverErrors } from '@/testing/fixtures';

// The editor a created or imported spreadsheet opens in stays at "loading": its engine (WebAssembly)
// and grid (canvas) are the end-to-end tests' business.
vi.mock('@/features/spreadsheets/engine/load', () => ({ ENGINE_VERSION: 'ironcalc-0.8.3', loadEngine: () => new Promise(() => {}) }));

// Both screens' modules, imported before the first test: beside the API tests on two busy cores,
// the editor a created spreadsheet opens in took the toast's test past its deadline in CI.
beforeAll(async () => {
  await Promise.all([import('./SpreadsheetListScreen'), import('./SpreadsheetEditorScreen')]);
}, 120_000);

const user = makeUser('DepartmentUser', { id: 'hal', fullName: 'Hal Jordan' });
const ceo = makeUser('EnterpriseCeo', { id: 'ceo', fullName: 'Cora Ceo' });
const departments = makeDepartments(user.enterpriseId!);
const operations = departments[1];
const LIST = `/api/v1/departments/${operations.id}/spreadsheets`;

function summary(overrides: Partial<SpreadsheetSummary> = {}): SpreadsheetSummary {
  return {
    id: 's1',
    departmentId: operations.id,
    name: 'Budget 2026',
    version: 3,
    engineVersion: 'ironcalc-0.8.3',
    createdBy: 'hal',
    createdByName: 'Hal Jordan',
    createdAt: '2026-03-01T09:00:00Z',
    updatedBy: 'hal',
    updatedByName: 'Hal Jordan',
    updatedAt: '2026-03-02T10:00:00Z',
    ...overrides,
  };
}

const full = (overrides: Partial<Spreadsheet> = {}): Spreadsheet => ({
  ...summary(),
  content: 'AAEC',
  editable: true,
  ...overrides,
});

function mockList(items: SpreadsheetSummary[], more: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    [`GET ${LIST}`]: jsonResponse(200, page(items)),
    [`GET /api/v1/enterprises/${operations.enterpriseId}/departments/${operations.id}`]: jsonResponse(200, operations),
    ...more,
  });
}

const row = (name: string) => screen.getAllByTestId('spreadsheet-row').find((tr) => tr.textContent?.includes(name))!;

describe('the spreadsheet list', () => {
  it('has an empty state that offers to create one or import a workbook', async () => {
    mockList([]);
    session.start('token', user);
    renderApp(`/department/${operations.id}/spreadsheet`);

    expect(await screen.findByText('No spreadsheets yet')).toBeInTheDocument();
    expect(screen.getByText('Create one, or import an Excel workbook (.xlsx).')).toBeInTheDocument();
    expect(await screen.findByText(/^Operations: spreadsheets with formulas/)).toBeInTheDocument();
    // In the header and in the empty state.
    expect(screen.getAllByRole('button', { name: 'New spreadsheet' })).toHaveLength(2);
    expect(screen.getAllByRole('button', { name: 'Import XLSX' })).toHaveLength(2);
  });

  it('lists the spreadsheets with who saved them last, each a link to its editor', async () => {
    mockList([summary(), summary({ id: 's2', name: 'Headcount', updatedByName: 'Dee Dee' })]);
    session.start('token', user);
    renderApp(`/department/${operations.id}/spreadsheet`);

    expect(await screen.findByRole('link', { name: 'Budget 2026' })).toHaveAttribute('href', `/department/${operations.id}/spreadsheet/s1`);
    expect(row('Headcount')).toHaveTextContent('by Dee Dee');
    expect(row('Budget 2026')).toHaveTextContent('Mar 2, 2026');
  });

  it('creates a spreadsheet under the name given and opens it', async () => {
    const { calls } = mockList([], {
      [`POST ${LIST}`]: ({ body }) => jsonResponse(201, summary({ id: 'new', name: (body as { name: string }).name, version: 1 })),
      'GET /api/v1/spreadsheets/new': jsonResponse(200, full({ id: 'new', name: 'Forecast', version: 1 })),
    });
    session.start('token', user);
    const events = userEvent.setup();
    const { location } = renderApp(`/department/${operations.id}/spreadsheet`);

    await events.click((await screen.findAllByRole('button', { name: 'New spreadsheet' }))[0]);
    const dialog = await screen.findByRole('dialog', { name: 'New spreadsheet' });
    const name = within(dialog).getByLabelText(/^Name/);
    expect(name).toHaveValue('Untitled spreadsheet');
    await events.clear(name);
    await events.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByText('This field is required')).toBeInTheDocument();
    await events.type(name, '  Forecast ');
    await events.click(within(dialog).getByRole('button', { name: 'Create' }));

    await waitFor(() => expect(location().pathname).toBe(`/department/${operations.id}/spreadsheet/new`));
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.body)).toEqual([{ name: 'Forecast' }]);
    expect(await screen.findByText('The spreadsheet Forecast was created')).toBeInTheDocument();
  });

  it('renames from the row menu: the current content saved under the new name, from its version', async () => {
    const { calls } = mockList([summary()], {
      'GET /api/v1/spreadsheets/s1': jsonResponse(200, full({ version: 7, content: 'Ynl0ZXM=' })),
      'PUT /api/v1/spreadsheets/s1': jsonResponse(200, { id: 's1', version: 8, updatedAt: '2026-03-03T10:00:00Z' }),
    });
    session.start('token', user);
    const events = userEvent.setup();
    renderApp(`/department/${operations.id}/spreadsheet`);

    await events.click(await screen.findByRole('button', { name: 'Actions for Budget 2026' }));
    await events.click(await screen.findByRole('menuitem', { name: 'Rename' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rename Budget 2026' });
    const name = within(dialog).getByLabelText(/^Name/);
    expect(name).toHaveValue('Budget 2026');
    await events.clear(name);
    await events.type(name, 'Budget 2027');
    await events.click(within(dialog).getByRole('button', { name: 'Rename' }));

    expect(await screen.findByText('The spreadsheet is now called Budget 2027')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ content: 'Ynl0ZXM=', version: 7, name: 'Budget 2027' });
  });

  it('asks before deleting, naming the spreadsheet, and deletes only once confirmed', async () => {
    const { calls } = mockList([summary()], { 'DELETE /api/v1/spreadsheets/s1': new Response(null, { status: 204 }) });
    session.start('token', user);
    const events = userEvent.setup();
    renderApp(`/department/${operations.id}/spreadsheet`);

    await events.click(await screen.findByRole('button', { name: 'Actions for Budget 2026' }));
    await events.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    let dialog = await screen.findByRole('dialog', { name: 'Delete spreadsheet' });
    expect(dialog).toHaveTextContent('Are you sure you want to delete the spreadsheet Budget 2026?');
    expect(dialog).toHaveTextContent('This action cannot be undone.');
    await events.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.filter((call) => call.method === 'DELETE')).toEqual([]);

    await events.click(screen.getByRole('button', { name: 'Actions for Budget 2026' }));
    await events.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    dialog = await screen.findByRole('dialog', { name: 'Delete spreadsheet' });
    await events.click(within(dialog).getByRole('button', { name: 'Delete spreadsheet' }));
    expect(await screen.findByText('The spreadsheet Budget 2026 was deleted')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual(['/api/v1/spreadsheets/s1']);
  });

  it('imports an .xlsx file and opens it; a file the server cannot read is said so', async () => {
    let answer = serverErrors.validation({ file: 'invalid' });
    const { calls } = mockList([], {
      [`POST ${LIST}/import`]: () => answer,
      'GET /api/v1/spreadsheets/imported': jsonResponse(200, full({ id: 'imported', name: 'figures' })),
    });
    session.start('token', user);
    const events = userEvent.setup({ applyAccept: false });
    const { location } = renderApp(`/department/${operations.id}/spreadsheet`);
    await screen.findByText('No spreadsheets yet');
    const input = () => document.querySelector<HTMLInputElement>('input[type=file]')!;
    expect(input()).toHaveAttribute('accept', expect.stringContaining('.xlsx'));

    await events.upload(input(), new File(['not a workbook'], 'figures.xlsx'));
    expect(await screen.findByText('This file is not an Excel workbook (.xlsx) that can be read.')).toBeInTheDocument();

    answer = jsonResponse(201, summary({ id: 'imported', name: 'figures', version: 1 }));
    await events.upload(input(), new File(['PK'], 'figures.xlsx'));
    await waitFor(() => expect(location().pathname).toBe(`/department/${operations.id}/spreadsheet/imported`));
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([`${LIST}/import`, `${LIST}/import`]);
  });

  it('refuses a file over 8 MB without sending it', async () => {
    const { calls } = mockList([]);
    session.start('token', user);
    const events = userEvent.setup();
    renderApp(`/department/${operations.id}/spreadsheet`);
    await screen.findByText('No spreadsheets yet');

    const big = new File(['x'], 'big.xlsx', { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
    Object.defineProperty(big, 'size', { value: 8 * 1024 * 1024 + 1 });
    await events.upload(document.querySelector<HTMLInputElement>('input[type=file]')!, big);
    expect(await screen.findByText('The file is too large: at most 8 MB, and not too many cells.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('shows the CEO the list read-only: no create, import, rename or delete', async () => {
    mockList([summary()]);
    session.start('token', ceo);
    renderApp(`/department/${operations.id}/spreadsheet`);

    expect(await screen.findByRole('link', { name: 'Budget 2026' })).toBeInTheDocument();
    expect(await screen.findByText("Operations: the department's spreadsheets, read-only.")).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New spreadsheet' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Import XLSX' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Actions for Budget 2026' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to my enterprise' })).toHaveAttribute('href', '/ceo');
  });

  it("does not open another department's spreadsheets for staff", async () => {
    const { calls } = mockList([]);
    session.start('token', user);
    renderApp(`/department/${departments[0].id}/spreadsheet`);

    expect(await screen.findByText('This spreadsheet or department does not exist, or is not yours to open.')).toBeInTheDocument();
    expect(calls.filter((call) => call.path.includes('/spreadsheets'))).toEqual([]);
  });
});
