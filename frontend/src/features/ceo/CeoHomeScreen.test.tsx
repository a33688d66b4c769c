import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Department, DepartmentType, StatusCounts } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import {
  jsonResponse,
  makeCeoDashboard,
  makeDepartments,
  makeEnterpriseDetail,
  makeEnterpriseSecurityPolicy,
  makeSsoSettings,
  makeUser,
  page,
  serverErrors,
  summaryOf,
  makeUsage,
} from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { selectOptions } from '@/testing/select';

const ceo = makeUser('EnterpriseCeo', { id: 'ceo', fullName: 'Cora Ceo' });
const enterpriseId = ceo.enterpriseId!;
const base = `/api/v1/enterprises/${enterpriseId}`;
const hal = makeUser('DepartmentUser', { id: 'hal', fullName: 'Hal Jordan', email: 'hal@acme.test', departmentId: null });
const dee = makeUser('DepartmentHead', { id: 'dee', fullName: 'Dee Dee', email: 'dee@acme.test' });
const summary = summaryOf;
const ofType = (departments: Department[], type: DepartmentType) => departments.find((department) => department.type === type)!;

const counts = (submitted: number, reviewed = 0, approved = 0, rejected = 0): StatusCounts => ({ submitted, reviewed, approved, rejected });

function ceoDashboard(departments: Department[]) {
  return makeCeoDashboard({
    enterpriseId,
    enterpriseName: 'Acme Corp',
    departments: departments.map((d, index) => ({ id: d.id, type: d.type, head: d.head, memberCount: d.members.length, reports: counts(index, 1) })),
    totals: counts(10, 5, 3, 2),
    pendingReviews: 15,
    recentActivity: [
      {
        reportId: 'r1',
        reportTitle: 'Q1 figures',
        departmentId: departments[0].id,
        actor: summary(hal),
        fromStatus: 'draft',
        toStatus: 'submitted',
        notes: null,
        at: '2026-03-01T10:00:00Z',
      },
    ],
  });
}

function mockEnterprise(departments: Department[], extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    [`GET ${base}`]: () => jsonResponse(200, makeEnterpriseDetail({ name: 'Acme Corp', departments })),
    [`GET ${base}/departments`]: () => jsonResponse(200, departments),
    [`GET ${base}/users`]: jsonResponse(200, page([ceo, hal, dee])),
    'GET /api/v1/users': jsonResponse(200, page([hal], 2, 1)),
    'GET /api/v1/dashboard/ceo': () => jsonResponse(200, ceoDashboard(departments)),
    [`GET ${base}/security-policy`]: () => jsonResponse(200, makeEnterpriseSecurityPolicy()),
    [`GET ${base}/exports`]: () => jsonResponse(200, []),
    [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
    [`GET ${base}/sso`]: () => jsonResponse(200, makeSsoSettings()),
    ...extra,
  });
}

beforeEach(() => session.start('token', ceo));

describe('the CEO home', () => {
  it('names the enterprise and sums it up', async () => {
    mockEnterprise(makeDepartments());
    renderApp('/ceo');
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Corp' })).toBeInTheDocument();
    expect(await screen.findByTestId('ceo-summary-departments')).toHaveTextContent('Departments5');
    expect(await screen.findByTestId('ceo-summary-staff')).toHaveTextContent('Department staff2');
  });

  it('shows the reports waiting for review, the totals and the latest activity', async () => {
    mockEnterprise(makeDepartments());
    renderApp('/ceo');
    await waitFor(() => expect(screen.getByTestId('ceo-kpi-pending')).toHaveTextContent('Pending reviews15'));
    expect(screen.getByTestId('ceo-kpi-approved')).toHaveTextContent('Approved3');
    expect(screen.getByRole('link', { name: 'Pending reviews' })).toHaveAttribute('href', '/ceo/reports?status=submitted');
    expect(screen.getByRole('link', { name: 'Q1 figures' })).toHaveAttribute('href', '/ceo/reports/r1');
    expect(screen.getByText(/Draft → Submitted · Hal Jordan/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'All reports' })).toHaveAttribute('href', '/ceo/reports');
  });

  it('says no report was submitted yet instead of drawing an empty chart', async () => {
    const departments = makeDepartments();
    mockEnterprise(departments, {
      'GET /api/v1/dashboard/ceo': () =>
        jsonResponse(200, {
          ...ceoDashboard(departments),
          departments: departments.map((d) => ({ id: d.id, type: d.type, head: d.head, memberCount: 0, reports: counts(0) })),
          totals: counts(0),
          pendingReviews: 0,
          recentActivity: [],
        }),
    });
    renderApp('/ceo');
    expect(await screen.findByTestId('ceo-chart-empty')).toHaveTextContent(/No report has been submitted yet/);
    expect(screen.queryByTestId('ceo-chart')).not.toBeInTheDocument();
  });

  it('makes a person the head of a department, choosing among the staff only', async () => {
    let departments = makeDepartments();
    const { calls } = mockEnterprise(departments, {
      [`GET ${base}/departments`]: () => jsonResponse(200, departments),
      [`PUT ${base}/departments/${ofType(departments, 'finance').id}`]: () => {
        departments = makeDepartments(enterpriseId, { finance: { head: summary(hal), members: [summary(hal)] } });
        return jsonResponse(200, ofType(departments, 'finance'));
      },
    });
    const user = userEvent.setup();
    renderApp('/ceo');

    const finance = await screen.findByRole('region', { name: 'Finance' });
    expect(within(finance).getByTestId('department-head')).toHaveTextContent('No head');
    await user.click(within(finance).getByRole('button', { name: 'Set head' }));
    const dialog = await screen.findByRole('dialog', { name: 'Head of Finance' });

    await user.click(within(dialog).getByRole('button', { name: 'Set as head' }));
    expect(within(dialog).getByText('This field is required')).toBeInTheDocument();

    const picker = within(dialog).getByRole('combobox', { name: /New head/ });
    await waitFor(() => expect(picker).toBeEnabled()); // the staff list loads when the dialog opens
    await user.click(picker);
    const options = await selectOptions(picker);
    expect(options.map((option) => option.textContent)).toEqual(['Hal Jordan (hal@acme.test)', 'Dee Dee (dee@acme.test)']);
    await user.click(options[0]);
    await user.click(within(dialog).getByRole('button', { name: 'Set as head' }));

    expect(await screen.findByText('Hal Jordan is now the head of Finance')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ headId: 'hal' });
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Finance' })).getByTestId('department-head')).toHaveTextContent('Hal Jordan'));
    expect(within(screen.getByRole('list', { name: 'Members of Finance' })).getByText('Hal Jordan')).toBeInTheDocument();
  });

  it('clears a head with headId null', async () => {
    const departments = makeDepartments(enterpriseId, { operations: { head: summary(dee), members: [summary(dee)] } });
    const operations = ofType(departments, 'operations');
    const { calls } = mockEnterprise(departments, {
      [`PUT ${base}/departments/${operations.id}`]: jsonResponse(200, { ...operations, head: null } satisfies Department),
    });
    const user = userEvent.setup();
    renderApp('/ceo');

    const region = await screen.findByRole('region', { name: 'Operations' });
    await user.click(within(region).getByRole('button', { name: 'Clear head' }));
    expect(await screen.findByText('Operations no longer has a head')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ headId: null });
  });

  it('adds a member, then removes one after confirming', async () => {
    const departments = makeDepartments(enterpriseId, { sales_marketing: { members: [summary(dee)] } });
    const sales = ofType(departments, 'sales_marketing');
    const { calls } = mockEnterprise(departments, {
      [`POST ${base}/departments/${sales.id}/users`]: new Response(null, { status: 204 }),
      [`DELETE ${base}/departments/${sales.id}/users/dee`]: new Response(null, { status: 204 }),
    });
    const user = userEvent.setup();
    renderApp('/ceo');

    const region = await screen.findByRole('region', { name: 'Sales and marketing' });
    await user.click(within(region).getByRole('button', { name: 'Add member' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a member to Sales and marketing' });
    const picker = within(dialog).getByRole('combobox', { name: /Person/ });
    await waitFor(() => expect(picker).toBeEnabled());
    await user.click(picker);
    // Dee is a member already: only Hal is offered.
    const options = await selectOptions(picker);
    expect(options.map((option) => option.textContent)).toEqual(['Hal Jordan (hal@acme.test)']);
    await user.click(options[0]);
    await user.click(within(dialog).getByRole('button', { name: 'Add member' }));
    expect(await screen.findByText('Hal Jordan was added to Sales and marketing')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ userId: 'hal' });

    await user.click(within(region).getByRole('button', { name: 'Remove Dee Dee from Sales and marketing' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove from Sales and marketing' });
    expect(confirm).toHaveTextContent('Remove Dee Dee from Sales and marketing?');
    await user.click(within(confirm).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Dee Dee was removed from Sales and marketing')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([`${base}/departments/${sales.id}/users/dee`]);
  });

  it('shows why the departments could not load, and tries again', async () => {
    let fail = true;
    mockEnterprise(makeDepartments(), {
      [`GET ${base}/departments`]: () => (fail ? serverErrors.forbidden() : jsonResponse(200, makeDepartments())),
    });
    const user = userEvent.setup();
    renderApp('/ceo');
    expect(await screen.findByText('You are not authorized to perform this action')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('region', { name: 'Finance' })).toBeInTheDocument();
  });
});

describe("the CEO home's export card", () => {
  const running = {
    id: 'x1',
    status: 'running',
    progress: 42,
    stage: 'reports',
    createdAt: '2026-03-01T10:00:00Z',
    finishedAt: null,
    downloadUrl: null,
    expiresAt: null,
    sizeBytes: null,
    sha256: null,
    error: null,
  };
  const ready = {
    ...running,
    status: 'ready',
    progress: 100,
    stage: 'ready',
    finishedAt: '2026-03-01T10:02:00Z',
    downloadUrl: `${base}/exports/x1/download`,
    expiresAt: '2026-03-08T10:02:00Z',
    sizeBytes: 12_400_000,
    sha256: 'ab',
  };

  it('asks for an export, follows its percent and stage, then offers the archive with its size and expiry', async () => {
    let listed: object[] = [];
    const { calls } = mockEnterprise(makeDepartments(), {
      [`GET ${base}/exports`]: () => jsonResponse(200, listed),
      [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
      [`POST ${base}/exports`]: () => {
        listed = [running];
        return jsonResponse(202, running);
      },
    });
    const user = userEvent.setup();
    renderApp('/ceo');
    const card = await screen.findByRole('region', { name: 'Export all data' });
    expect(await within(card).findByText(/No export yet/)).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Export all data' }));
    expect(await within(card).findByText('42% · reports')).toBeInTheDocument();
    expect(within(card).getByRole('progressbar', { name: 'Export progress' })).toBeInTheDocument();
    // One at a time: asking again waits for this one.
    expect(within(card).getByRole('button', { name: 'Export all data' })).toBeDisabled();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);

    listed = [ready];
    expect(await within(card).findByText('Ready', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(within(card).getByText(/^12\.4 MB · can be downloaded until Mar 8, 2026/)).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Download' })).toBeEnabled();
    expect(within(card).getByRole('button', { name: 'Export all data' })).toBeEnabled();
  });

  it('says a failed export in the screen’s words, in French too', async () => {
    await changeLocale('fr');
    mockEnterprise(makeDepartments(), {
      [`GET ${base}/exports`]: () => jsonResponse(200, [{ ...running, status: 'failed', stage: 'failed', error: 'The archive could not be written.' }]),
      [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
    });
    renderApp('/ceo');
    const card = await screen.findByRole('region', { name: 'Exporter toutes les données' });
    expect(await within(card).findByText('Échec')).toBeInTheDocument();
    expect(within(card).getByText(/L'archive n'a pas pu être écrite/)).toBeInTheDocument();
    await changeLocale('en');
  });
});

describe('the enterprise’s usage on the CEO’s home', () => {
  const busy = () => {
    const usage = makeUsage({
      current: { people: 3, activeSessions: 2, storageBytes: 1_200_000, spreadsheets: 1, reports: 4 },
      limits: { people: 50, storageBytes: 1_000_000_000, apiCallsPerMinute: 600 },
      ownLimits: { people: 50 },
    });
    usage.daily[27] = { ...usage.daily[27], apiCalls: 5, signIns: 1 };
    usage.daily[28] = { ...usage.daily[28], apiCalls: 40, signIns: 2, emails: 1 };
    usage.daily[29] = { ...usage.daily[29], apiCalls: 12, exports: 1 };
    return usage;
  };

  it('shows what it holds against its limits, its days as a chart or a table that sorts, and no way to change the limits', async () => {
    mockEnterprise(makeDepartments(), { [`GET ${base}/usage`]: () => jsonResponse(200, busy()) });
    const user = userEvent.setup();
    renderApp('/ceo');
    const card = await screen.findByRole('region', { name: 'Usage' });
    expect(await within(card).findByText('3 of 50 people')).toBeInTheDocument();
    expect(within(card).getByText('1.2 MB of 1 GB used')).toBeInTheDocument();
    expect(within(card).getByText('At most 600 a minute')).toBeInTheDocument();
    expect(within(card).getByRole('progressbar', { name: 'People: 3 of 50 people' })).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Edit limits' })).not.toBeInTheDocument();
    expect(await within(card).findByTestId('usage-chart')).toBeInTheDocument();

    await user.click(within(card).getByRole('radio', { name: 'Table' }));
    const table = within(card).getByRole('table', { name: 'Usage per day' });
    const firstCells = () =>
      within(table)
        .getAllByRole('row')
        .slice(1, 4)
        .map((row) => within(row).getAllByRole('cell')[0].textContent);
    expect(firstCells()).toEqual(['Mar 31, 2026', 'Mar 30, 2026', 'Mar 29, 2026']);
    await user.click(within(table).getByRole('button', { name: 'API calls' }));
    expect(within(table).getByRole('columnheader', { name: 'API calls' })).toHaveAttribute('aria-sort', 'descending');
    expect(firstCells()).toEqual(['Mar 30, 2026', 'Mar 31, 2026', 'Mar 29, 2026']);
    await user.click(within(table).getByRole('button', { name: 'API calls' }));
    expect(within(table).getByRole('columnheader', { name: 'API calls' })).toHaveAttribute('aria-sort', 'ascending');
    expect(within(card).getByText('Showing 1–10 of 30')).toBeInTheDocument();
  });

  it('says it in French, units and all, and says when nothing was counted', async () => {
    await changeLocale('fr');
    const usage = busy();
    usage.daily = usage.daily.map((d) => ({ ...d, apiCalls: 0, signIns: 0, emails: 0, exports: 0 }));
    // One person: the French agrees in the singular.
    usage.current = { ...usage.current, people: 1 };
    mockEnterprise(makeDepartments(), { [`GET ${base}/usage`]: () => jsonResponse(200, usage) });
    renderApp('/ceo');
    const card = await screen.findByRole('region', { name: 'Utilisation' });
    expect(await within(card).findByText('1 personne sur 50')).toBeInTheDocument();
    expect(within(card).getByText(/^1,2\sMo utilisés sur 1\sGo$/)).toBeInTheDocument();
    expect(within(card).getByText('Au plus 600 par minute')).toBeInTheDocument();

    expect(within(card).getByText("Rien n'a encore été compté sur cette période.")).toBeInTheDocument();
    await changeLocale('en');
  });
});
