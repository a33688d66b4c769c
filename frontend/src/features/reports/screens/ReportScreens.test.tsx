import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ReportDetail, ReportEvent } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeReportDetail, makeUser, page, summaryOf } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const author = makeUser('DepartmentUser', { id: 'author', fullName: 'Ada Author' });
const ceo = makeUser('EnterpriseCeo', { id: 'ceo', fullName: 'Cora Ceo' });
const admin = makeUser('PlatformAdmin', { id: 'admin', fullName: 'Pat Admin' });
const dept = author.departmentId!;

const event = (overrides: Partial<ReportEvent>): ReportEvent => ({
  id: `e-${overrides.toStatus}-${overrides.createdAt}`,
  actor: summaryOf(author),
  fromStatus: null,
  toStatus: 'draft',
  notes: null,
  createdAt: '2026-04-01T10:00:00Z',
  ...overrides,
});

/** Rejected with notes, then edited and submitted again: the server cleared the review, the history keeps it. */
const resubmitted: ReportDetail = makeReportDetail(author, {
  id: 'r1',
  title: 'Q1 figures',
  status: 'submitted',
  submittedAt: '2026-04-05T10:00:00Z',
  reviewNotes: null,
  reviewedBy: null,
  reviewedAt: null,
  history: [
    event({ toStatus: 'submitted', createdAt: '2026-04-01T10:00:00Z' }),
    event({ fromStatus: 'submitted', toStatus: 'rejected', actor: summaryOf(ceo), notes: 'Check North', createdAt: '2026-04-02T10:00:00Z' }),
    event({ fromStatus: 'rejected', toStatus: 'draft', createdAt: '2026-04-03T10:00:00Z' }),
    event({ fromStatus: 'draft', toStatus: 'submitted', createdAt: '2026-04-05T10:00:00Z' }),
  ],
});

describe('a report that was rejected and then resubmitted', () => {
  it('shows the CEO no review as current (the old one is only in the history), even if an answer still carried it', async () => {
    session.start('token', ceo);
    // An older answer with the stale review still in it: the screen does not present it as current.
    const stale = { ...resubmitted, reviewNotes: 'Check North', reviewedBy: summaryOf(ceo), reviewedAt: '2026-04-02T10:00:00Z' };
    mockApi({ 'GET /api/v1/reports/r1': jsonResponse(200, stale) });
    renderApp('/ceo/reports/r1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Q1 figures' })).toBeInTheDocument();
    expect(screen.queryByTestId('review-notes')).not.toBeInTheDocument();
    expect(screen.getByText('Reviewed by').nextElementSibling).toHaveTextContent('—');
    expect(within(screen.getByTestId('report-history')).getByText('Check North')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Approve' })).toBeInTheDocument();
    // The first entry is a sentence: the status in it is not capitalised, in either language.
    expect(within(screen.getByTestId('report-history')).getByText('Created as submitted')).toBeInTheDocument();
    await act(() => changeLocale('fr'));
    expect(await within(screen.getByTestId('report-history')).findByText('Créé en tant que soumis')).toBeInTheDocument();
  });

  it("shows the author's edit screen the last rejection's notes, from the history, labelled as such", async () => {
    session.start('token', author);
    const draft = { ...resubmitted, status: 'draft', submittedAt: null, history: resubmitted.history.slice(0, 3) } satisfies ReportDetail;
    mockApi({ 'GET /api/v1/reports/r1': jsonResponse(200, draft) });
    renderApp(`/department/${dept}/reports/r1/edit`);
    const notes = await screen.findByTestId('review-notes');
    expect(notes).toHaveTextContent('Notes from the last rejection');
    expect(notes).toHaveTextContent('Rejected by Cora Ceo');
    expect(notes).toHaveTextContent('Check North');
  });
});

describe('the platform admin', () => {
  it('opens a report by its id alone: no enterpriseId is needed, none is sent', async () => {
    session.start('token', admin);
    const approved = makeReportDetail(author, { id: 'r2', title: 'Q2 figures', status: 'approved' });
    const { calls } = mockApi({ 'GET /api/v1/reports/r2': jsonResponse(200, approved) });
    renderApp('/ceo/reports/r2');
    expect(await screen.findByRole('heading', { level: 1, name: 'Q2 figures' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to enterprises' })).toHaveAttribute('href', '/admin/enterprises');
    expect(calls.map((call) => call.path)).toContain('/api/v1/reports/r2');
    expect(screen.queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
  });

  it('still names the enterprise when the link gives it, and leads back to it', async () => {
    session.start('token', admin);
    const approved = makeReportDetail(author, { id: 'r2', title: 'Q2 figures', status: 'approved' });
    const { calls } = mockApi({ 'GET /api/v1/reports/r2': jsonResponse(200, approved) });
    renderApp('/ceo/reports/r2?enterpriseId=e9');
    expect(await screen.findByRole('heading', { level: 1, name: 'Q2 figures' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to the enterprise' })).toHaveAttribute('href', '/admin/enterprises/e9');
    expect(calls.map((call) => call.path)).toContain('/api/v1/reports/r2?enterpriseId=e9');
  });
});

describe('reviewing a report', () => {
  it('tells the CEO the report was rejected even when its live update arrives before the answer and the review panel is gone', async () => {
    session.start('token', ceo);
    const submitted = makeReportDetail(author, { id: 'r4', title: 'Q2 figures', status: 'submitted', submittedAt: '2026-07-01T10:00:00Z' });
    const rejected: ReportDetail = {
      ...submitted,
      status: 'rejected',
      reviewNotes: 'Check South',
      reviewedBy: summaryOf(ceo),
      reviewedAt: '2026-07-02T10:00:00Z',
    };
    let current = submitted;
    const rendered: { queryClient?: ReturnType<typeof renderApp>['queryClient'] } = {};
    mockApi({
      'GET /api/v1/reports/r4': () => jsonResponse(200, current),
      // The server has reviewed it and told every screen so (the realtime event) before this
      // answer reaches the browser: the screen reads it rejected, and the panel that asked leaves.
      'POST /api/v1/reports/r4/review': async () => {
        current = rejected;
        await act(() => rendered.queryClient!.invalidateQueries({ queryKey: ['/api/v1/reports/r4'] }));
        await waitFor(() => expect(screen.queryByRole('button', { name: 'Reject' })).not.toBeInTheDocument());
        return jsonResponse(200, rejected);
      },
      'GET /api/v1/reports': jsonResponse(200, page([])),
    });
    const user = userEvent.setup();
    rendered.queryClient = renderApp('/ceo/reports/r4').queryClient;
    await user.type(await screen.findByRole('textbox', { name: 'Review notes' }), 'Check South');
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    expect(await screen.findByText('Report rejected')).toBeInTheDocument();
    expect(screen.getByTestId('review-notes')).toHaveTextContent('Check South');
  });
});

describe('deleting a report', () => {
  it("asks with SPEC §8's sentence, the title and that it is final; then leaves without reading the deleted report again", async () => {
    session.start('token', author);
    const draft = makeReportDetail(author, { id: 'r3', title: 'Doomed draft', status: 'draft' });
    const { calls } = mockApi({
      'GET /api/v1/reports/r3': jsonResponse(200, draft),
      'DELETE /api/v1/reports/r3': new Response(null, { status: 204 }),
      [`GET /api/v1/departments/${dept}/reports`]: jsonResponse(200, page([])),
    });
    const user = userEvent.setup();
    const { location } = renderApp(`/department/${dept}/reports/r3`);
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete report' });
    expect(dialog).toHaveTextContent('Are you sure you want to delete this report?');
    expect(dialog).toHaveTextContent('“Doomed draft” and its history will be permanently deleted.');
    expect(dialog).toHaveTextContent('This action cannot be undone.');

    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(location().pathname).toBe(`/department/${dept}/reports`));
    expect(await screen.findByText('Report deleted successfully')).toBeInTheDocument();
    const deletedAt = calls.findIndex((call) => call.method === 'DELETE');
    expect(deletedAt).toBeGreaterThan(-1);
    expect(calls.slice(deletedAt + 1).filter((call) => call.path.startsWith('/api/v1/reports/r3'))).toEqual([]);
  });
});
