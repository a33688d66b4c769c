import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { AuditEvent } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { type MockRequest, mockApi } from '@/testing/api-mock';
import {
  jsonResponse,
  makeAuditEvent,
  makeEnterprise,
  makeEnterpriseDetail,
  makeEnterpriseSecurityPolicy,
  makeSsoSettings,
  makeReportDetail,
  makeUser,
  page,
  makeUsage,
} from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { optionNames } from '@/testing/select';

const enterprise = makeEnterprise({ id: '0190f3c2-0000-7000-8000-0000000000e1', name: 'Acme Corp' });
const ceo = makeUser('EnterpriseCeo', { id: '0190f3c2-0000-7000-8000-0000000000c1', fullName: 'Nora Chef', enterpriseId: enterprise.id });
const admin = makeUser('PlatformAdmin', { id: '0190f3c2-0000-7000-8000-0000000000a1', fullName: 'Ada Admin' });
const SAM = '0190f3c2-0000-7000-8000-0000000000b2';
const REPORT = '0190f3c2-0000-7000-8000-0000000000f1';

const approved = makeAuditEvent({ id: '0190f3c2-0000-7000-8000-000000000aa3', actor: { type: 'user', id: ceo.id, name: 'Nora Chef' }, targetId: REPORT });
const roleChanged = makeAuditEvent({
  id: '0190f3c2-0000-7000-8000-000000000aa2',
  at: '2026-03-01T16:30:05Z',
  actor: { type: 'user', id: ceo.id, name: 'Nora Chef' },
  action: 'user.role_changed',
  targetType: 'user',
  targetId: SAM,
  targetName: 'Sam Lee',
  changes: { role: ['DepartmentUser', 'DepartmentHead'] },
});
const exported = makeAuditEvent({
  id: '0190f3c2-0000-7000-8000-000000000aa1',
  at: '2026-02-27T08:00:00Z',
  actor: { type: 'token', id: '0190f3c2-0000-7000-8000-0000000007b1', name: 'Warehouse sync' },
  action: 'report.exported',
  targetId: REPORT,
  place: null,
  ip: '203.0.113.9',
  changes: { format: 'csv' },
});

/** The audit log as the server pages it: newest first, `pageSize` at a time, older ones before the cursor. */
function auditAnswers(events: AuditEvent[], pageSize = 50) {
  return {
    'GET /api/v1/audit-events': ({ url }: MockRequest) => {
      const before = url.searchParams.get('before');
      const start = before ? events.findIndex((event) => event.id === before) + 1 : 0;
      const size = Math.min(pageSize, Number(url.searchParams.get('pageSize') ?? 50));
      const items = events.slice(start, start + size);
      const more = start + size < events.length;
      return jsonResponse(200, { items, nextCursor: more ? items[items.length - 1].id : null });
    },
  };
}

const entries = () => screen.getAllByTestId('audit-entry');
const listCalls = (calls: { path: string }[]) => calls.map((call) => call.path).filter((path) => path.startsWith('/api/v1/audit-events?'));

describe('the audit log', () => {
  it("the CEO's: in the sidebar, each entry a sentence with its time and place, its details on demand", async () => {
    const { calls } = mockApi(auditAnswers([approved, roleChanged, exported]));
    session.start('token', ceo);
    const user = userEvent.setup();
    const { location } = renderApp('/no-such-page');

    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    await user.click(within(nav).getByRole('link', { name: 'Audit log' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit log' })).toBeInTheDocument();
    expect(location().pathname).toBe('/audit');
    await screen.findAllByTestId('audit-entry');
    expect(entries().map((entry) => within(entry).getByTestId('audit-sentence').textContent)).toEqual([
      'Nora Chef approved the report “Q1 figures”',
      "Nora Chef changed Sam Lee's role from Department user to Department head",
      'Warehouse sync exported the report “Q1 figures” as CSV',
    ]);
    expect(listCalls(calls)).toEqual(['/api/v1/audit-events?pageSize=50']);
    expect(within(entries()[0]).getByTestId('audit-where')).toHaveTextContent('London, United Kingdom · 81.2.69.142');
    expect(entries()[1]).toHaveTextContent('Mar 1, 2026');
    expect(entries()[2]).toHaveTextContent('Through a token');
    expect(screen.getByText('There are no older entries.')).toBeInTheDocument();

    const details = within(entries()[1]).getByRole('button', { name: 'Details' });
    expect(details).toHaveAttribute('aria-expanded', 'false');
    await user.click(details);
    expect(details).toHaveAttribute('aria-expanded', 'true');
    const shown = within(entries()[1]).getByTestId('audit-details');
    expect(shown).toHaveTextContent('Role changed · user.role_changed');
    expect(shown).toHaveTextContent('Firefox/128.0');
    expect(within(shown).getByTestId('audit-changes')).toHaveTextContent('RoleDepartment user → Department head');
    expect(shown).toHaveTextContent(SAM);

    // "Only this target": the log narrows to what was done to Sam, in the URL.
    await user.click(within(shown).getByRole('button', { name: 'Only this target' }));
    await waitFor(() => expect(location().search).toBe(`?target=${SAM}`));
    await waitFor(() => expect(listCalls(calls)).toContain(`/api/v1/audit-events?target=${SAM}&pageSize=50`));
    expect(screen.getByLabelText('Target ID')).toHaveValue(SAM);
  });

  it('keeps its filters in the URL: a link or a reload shows the same entries', async () => {
    const { calls } = mockApi(auditAnswers([approved]));
    session.start('token', ceo);
    const user = userEvent.setup();
    const { location, unmount } = renderApp('/audit');
    await screen.findAllByTestId('audit-entry');

    const action = screen.getByRole('combobox', { name: 'Action' });
    await user.click(action);
    const options = await optionNames(action);
    expect(options.slice(0, 8)).toEqual([
      'All sign-in actions',
      'Signed in',
      'Sign-in failed',
      'Sign-in refused',
      'Recovery code used',
      'Signed out',
      'All two-step sign-in actions',
      'Authenticator app set up',
    ]);
    expect(options).toEqual(expect.arrayContaining(['Passkey added', 'Passkey removed', 'Two-step sign-in reset']));
    // The platform's own entries are the admin's alone.
    expect(options).not.toContain('All platform actions');
    expect(options).toContain('All report actions');
    await user.click(screen.getByRole('option', { name: 'Report approved', hidden: true }));
    await waitFor(() => expect(location().search).toBe('?action=report.approved'));

    await user.type(screen.getByLabelText('Actor ID'), 'not-an-id');
    await user.tab();
    expect(await screen.findByText('Enter an ID such as 0190f3c2-0000-7000-8000-000000000001')).toBeInTheDocument();
    expect(location().search).toBe('?action=report.approved');
    await user.clear(screen.getByLabelText('Actor ID'));
    await user.type(screen.getByLabelText('Actor ID'), ceo.id);
    await waitFor(() => expect(location().search).toBe(`?action=report.approved&actor=${ceo.id}`));
    await waitFor(() => expect(listCalls(calls)).toContain(`/api/v1/audit-events?action=report.approved&actor=${ceo.id}&pageSize=50`));

    // Another visit to that address (a reload, a shared link): the same filters, shown and sent.
    const from = new Date(2026, 2, 1).toISOString();
    const to = new Date(2026, 3, 1).toISOString();
    const link = `/audit?action=report&target=${REPORT}&from=2026-03-01&to=2026-03-31&q=Q1`;
    unmount();
    const again = mockApi(auditAnswers([approved]));
    renderApp(link);
    await waitFor(() =>
      expect(listCalls(again.calls)).toEqual([
        `/api/v1/audit-events?action=report&target=${REPORT}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&q=Q1&pageSize=50`,
      ]),
    );
    expect(await screen.findByRole('combobox', { name: 'Action' })).toHaveValue('All report actions');
    expect(screen.getByLabelText('Target ID')).toHaveValue(REPORT);
    expect(screen.getByLabelText('Search')).toHaveValue('Q1');
    expect(screen.getByLabelText('From')).toHaveValue('03/01/2026');
    expect(screen.getByLabelText('Until')).toHaveValue('03/31/2026');
  });

  it('loads older entries below, a page at a time', async () => {
    const older = Array.from({ length: 3 }, (_, index) =>
      makeAuditEvent({ id: `0190f3c2-0000-7000-8000-000000000b0${index}`, action: 'report.created', at: `2026-02-0${index + 1}T10:00:00Z` }),
    );
    const { calls } = mockApi(auditAnswers([approved, roleChanged, ...older], 2));
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/audit');

    await screen.findAllByTestId('audit-entry');
    expect(entries()).toHaveLength(2);
    expect(screen.getByText('2 entries shown')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Load older entries' }));
    await waitFor(() => expect(entries()).toHaveLength(4));
    expect(listCalls(calls)).toContain(`/api/v1/audit-events?pageSize=50&before=${roleChanged.id}`);
    await user.click(screen.getByRole('button', { name: 'Load older entries' }));
    await waitFor(() => expect(entries()).toHaveLength(5));
    expect(screen.queryByRole('button', { name: 'Load older entries' })).not.toBeInTheDocument();
    expect(screen.getByText('There are no older entries.')).toBeInTheDocument();
  });

  it('says when there is nothing, when nothing matches, and when it could not load', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/audit-events': ({ url }: MockRequest) => {
        if (fail) return jsonResponse(500, { code: 'internal', message: 'boom' });
        return jsonResponse(200, { items: url.searchParams.get('q') ? [] : [], nextCursor: null });
      },
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/audit?q=nothing');

    expect(await screen.findByText('Could not load this information')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No entries match')).toBeInTheDocument();
    // Said twice: under the filters and in the empty list.
    expect(screen.getAllByRole('button', { name: 'Clear filters' })).toHaveLength(2);
    await user.click(screen.getAllByRole('button', { name: 'Clear filters' })[1]);
    expect(await screen.findByText('No entries yet')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear filters' })).not.toBeInTheDocument();
  });

  it('exports what the filters select, as CSV or JSON Lines', async () => {
    const { calls } = mockApi({
      ...auditAnswers([approved]),
      'GET /api/v1/audit-events/export': () =>
        new Response('id,at\n', { status: 200, headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="audit-20260302.csv"' } }),
    });
    // jsdom makes no object URLs: the download gets a stand-in, put back after the test.
    const objectUrls = { createObjectURL: URL.createObjectURL, revokeObjectURL: URL.revokeObjectURL };
    Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:audit'), revokeObjectURL: vi.fn() });
    onTestFinished(() => {
      Object.assign(URL, objectUrls);
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/audit?action=report');

    await screen.findAllByTestId('audit-entry');
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(calls.map((call) => call.path)).toContain('/api/v1/audit-events/export?action=report&format=csv');
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe('audit-20260302.csv');
    expect(screen.getByRole('button', { name: 'Export JSON Lines' })).toBeInTheDocument();
  });

  it("the admin's: every enterprise's entries, each named, and an enterprise filter", async () => {
    const other = makeEnterprise({ id: '0190f3c2-0000-7000-8000-0000000000e2', name: 'Globex' });
    const platform = makeAuditEvent({
      id: '0190f3c2-0000-7000-8000-000000000aa9',
      enterpriseId: null,
      action: 'webhook.created',
      targetType: 'webhook',
      targetName: 'https://hooks.example.com/all',
      changes: { events: ['report.approved'] },
    });
    const { calls } = mockApi({
      ...auditAnswers([platform, approved]),
      'GET /api/v1/enterprises': jsonResponse(200, page([enterprise, other])),
    });
    session.start('token', admin);
    const user = userEvent.setup();
    const { location } = renderApp('/admin/enterprises');

    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    await user.click(within(nav).getByRole('link', { name: 'Audit log' }));
    expect(location().pathname).toBe('/admin/audit');
    await screen.findAllByTestId('audit-entry');
    expect(entries()[0]).toHaveTextContent('Nora Chef created the webhook https://hooks.example.com/all');
    expect(entries()[0]).toHaveTextContent('The platform');
    expect(await within(entries()[1]).findByRole('link', { name: 'Acme Corp' })).toHaveAttribute('href', `/admin/enterprises/${enterprise.id}`);

    const action = screen.getByRole('combobox', { name: 'Action' });
    await user.click(action);
    expect(await optionNames(action)).toEqual(expect.arrayContaining(['All platform actions', 'Security rule changed']));
    await user.keyboard('{Escape}');

    const filter = screen.getByRole('combobox', { name: 'Enterprise' });
    await user.click(filter);
    expect(await optionNames(filter)).toEqual(['Acme Corp', 'Globex']);
    await user.click(screen.getByRole('option', { name: 'Globex', hidden: true }));
    await waitFor(() => expect(location().search).toBe(`?enterpriseId=${other.id}`));
    await waitFor(() => expect(listCalls(calls)).toContain(`/api/v1/audit-events?enterpriseId=${other.id}&pageSize=50`));
  });

  it('is in French too', async () => {
    mockApi(auditAnswers([approved, roleChanged]));
    session.start('token', ceo);
    await act(() => changeLocale('fr'));
    renderApp('/audit');

    expect(await screen.findByRole('heading', { level: 1, name: "Journal d'audit" })).toBeInTheDocument();
    await screen.findAllByTestId('audit-entry');
    expect(entries().map((entry) => within(entry).getByTestId('audit-sentence').textContent)).toEqual([
      'Nora Chef a approuvé le rapport «\u00a0Q1 figures\u00a0»',
      'Nora Chef a changé le rôle de Sam Lee de Membre du département à Chef de département',
    ]);
    expect(within(entries()[0]).getByTestId('audit-where')).toHaveTextContent('London, Royaume-Uni · 81.2.69.142');
    expect(screen.getByRole('button', { name: 'Exporter en CSV' })).toBeInTheDocument();
  });
});

describe('links to the audit log', () => {
  it("from a user's actions, for the CEO", async () => {
    const sam = makeUser('DepartmentUser', { id: SAM, fullName: 'Sam Lee', enterpriseId: enterprise.id });
    mockApi({
      'GET /api/v1/users': jsonResponse(200, page([ceo, sam])),
      [`GET /api/v1/enterprises/${enterprise.id}/departments`]: jsonResponse(200, makeEnterpriseDetail().departments),
      ...auditAnswers([roleChanged]),
    });
    session.start('token', ceo);
    const user = userEvent.setup();
    const { location } = renderApp('/admin/users');

    await user.click(await screen.findByRole('button', { name: 'Actions for Sam Lee' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Audit log' }));
    await waitFor(() => expect(`${location().pathname}${location().search}`).toBe(`/audit?target=${SAM}`));
    expect(await screen.findByText("Nora Chef changed Sam Lee's role from Department user to Department head")).toBeInTheDocument();
  });

  it('from a report, for the CEO', async () => {
    const report = makeReportDetail(makeUser('DepartmentUser'), { id: REPORT, title: 'Q1 figures' });
    mockApi({ [`GET /api/v1/reports/${REPORT}`]: jsonResponse(200, report) });
    session.start('token', ceo);
    renderApp(`/ceo/reports/${REPORT}`);
    const main = await screen.findByRole('main');
    expect(await within(main).findByRole('link', { name: 'Audit log' })).toHaveAttribute('href', `/audit?target=${REPORT}`);
  });

  it("from an enterprise's page, for the admin", async () => {
    const detail = makeEnterpriseDetail({ name: 'Acme Corp' });
    const base = `/api/v1/enterprises/${detail.id}`;
    mockApi({
      [`GET ${base}`]: jsonResponse(200, detail),
      [`GET ${base}/departments`]: jsonResponse(200, detail.departments),
      [`GET ${base}/users`]: jsonResponse(200, page([])),
      [`GET ${base}/reports`]: jsonResponse(200, page([])),
      'GET /api/v1/enterprises': jsonResponse(200, page([])),
      [`GET ${base}/security-policy`]: jsonResponse(200, makeEnterpriseSecurityPolicy()),
      [`GET ${base}/exports`]: jsonResponse(200, []),
      [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
      [`GET ${base}/sso`]: () => jsonResponse(200, makeSsoSettings()),
    });
    session.start('token', admin);
    renderApp(`/admin/enterprises/${detail.id}`);
    const main = await screen.findByRole('main');
    expect(await within(main).findByRole('link', { name: 'Audit log' })).toHaveAttribute('href', `/admin/audit?target=${detail.id}`);
  });
});
