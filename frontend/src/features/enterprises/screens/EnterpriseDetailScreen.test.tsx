import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import type { Department, EnterpriseDetail } from '@/api/generated/model';
import {
  jsonResponse,
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

const detail = makeEnterpriseDetail({ name: 'Acme Corp', userCount: 3 });
const base = `/api/v1/enterprises/${detail.id}`;

function mockDetail(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    [`GET ${base}`]: jsonResponse(200, detail),
    [`GET ${base}/departments`]: jsonResponse(200, detail.departments),
    [`GET ${base}/users`]: jsonResponse(200, page([makeUser('EnterpriseCeo', { fullName: 'Cora Ceo' })])),
    [`GET ${base}/reports`]: jsonResponse(200, page([])),
    'GET /api/v1/enterprises': jsonResponse(200, page([])),
    [`GET ${base}/security-policy`]: () => jsonResponse(200, makeEnterpriseSecurityPolicy()),
    [`GET ${base}/exports`]: () => jsonResponse(200, []),
    [`GET ${base}/usage`]: () => jsonResponse(200, makeUsage()),
    [`GET ${base}/sso`]: () => jsonResponse(200, makeSsoSettings()),
    ...extra,
  });
}

beforeEach(() => session.start('token', makeUser('PlatformAdmin')));

describe('enterprise detail', () => {
  it('shows the enterprise, its counts, its five departments in order and its users', async () => {
    mockDetail();
    renderApp(`/admin/enterprises/${detail.id}`);

    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Corp' })).toBeInTheDocument();
    expect(screen.getByText('Cora Ceo · cora@acme.test')).toBeInTheDocument();
    const departments = await within(screen.getByRole('region', { name: 'Departments' })).findAllByRole('heading', { level: 3 });
    expect(departments.map((heading) => heading.textContent)).toEqual([
      'Finance',
      'Operations',
      'Sales and marketing',
      'Human resources',
      'Information technology',
    ]);
    const users = await screen.findByRole('table');
    expect(within(users).getByText('Cora Ceo')).toBeInTheDocument();
    expect(within(users).getByText('CEO')).toBeInTheDocument();
  });

  it('asks before deleting, naming the enterprise, its recovery window and what goes with it, then shows it scheduled', async () => {
    let current: EnterpriseDetail = detail;
    const { calls } = mockDetail({
      [`GET ${base}`]: () => jsonResponse(200, current),
      [`DELETE ${base}`]: () => {
        current = { ...detail, isActive: false, deletionScheduledAt: '2026-12-01T12:00:00Z', purgeAfter: '2026-12-31T12:00:00Z' };
        return jsonResponse(202, { status: 'scheduled', purgeAfter: '2026-12-31T12:00:00Z' });
      },
    });
    const user = userEvent.setup();
    const { location } = renderApp(`/admin/enterprises/${detail.id}`);

    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete enterprise' });
    expect(dialog).toHaveTextContent('Are you sure you want to delete the enterprise “Acme Corp”?');
    expect(dialog).toHaveTextContent('It is suspended at once: nobody can sign in, its tokens and webhooks stop.');
    expect(dialog).toHaveTextContent('Once the recovery window ends, this action cannot be undone.');
    expect(dialog).toHaveTextContent('All associated data will then be permanently removed');
    expect(dialog).toHaveTextContent('its departments');
    expect(dialog).toHaveTextContent('its users');
    expect(dialog).toHaveTextContent('its reports');
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);

    // The red button waits for the enterprise's exact name, typed into a labelled field that has the focus.
    const confirm = within(dialog).getByRole('button', { name: 'Delete enterprise' });
    const typed = within(dialog).getByRole('textbox', { name: "Type the enterprise's name to confirm" });
    expect(typed).toHaveAccessibleDescription('Type “Acme Corp” exactly as shown.');
    await waitFor(() => expect(typed).toHaveFocus());
    expect(confirm).toBeDisabled();
    for (const wrong of ['Acme', 'acme corp', 'Acme Corp.']) {
      await user.clear(typed);
      await user.type(typed, `${wrong}{Enter}`);
      expect(confirm).toBeDisabled();
    }
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    expect(dialog).toBeInTheDocument();

    await user.clear(typed);
    await user.type(typed, ' Acme Corp ');
    expect(confirm).toBeEnabled();
    await user.click(confirm);

    expect(await screen.findByText('The enterprise “Acme Corp” was deleted: it will be purged on Dec 31, 2026 unless it is restored')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([base]);
    // Still here, suspended: its page says until when and offers the way back.
    const banner = await screen.findByRole('region', { name: 'Deletion scheduled' });
    expect(banner).toHaveTextContent(
      'Acme Corp is suspended: nobody can sign in, and its tokens and webhooks are stopped. Its data will be erased for good on Dec 31, 2026.',
    );
    expect(location().pathname).toBe(`/admin/enterprises/${detail.id}`);
    expect(screen.getAllByText('Deletion scheduled').length).toBeGreaterThan(1);
    expect(screen.queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Activate' })).not.toBeInTheDocument();
  });

  it('deletes with Enter once the name is typed, and Cancel deletes nothing', async () => {
    const { calls } = mockDetail({ [`DELETE ${base}`]: jsonResponse(202, { status: 'scheduled', purgeAfter: '2026-12-31T12:00:00Z' }) });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    let dialog = await screen.findByRole('dialog', { name: 'Delete enterprise' });
    await user.type(within(dialog).getByRole('textbox', { name: "Type the enterprise's name to confirm" }), 'Acme Corp');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete enterprise' })).not.toBeInTheDocument());
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);

    // Opened again, the field starts empty.
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    dialog = await screen.findByRole('dialog', { name: 'Delete enterprise' });
    const typed = within(dialog).getByRole('textbox', { name: "Type the enterprise's name to confirm" });
    expect(typed).toHaveValue('');
    expect(within(dialog).getByRole('button', { name: 'Delete enterprise' })).toBeDisabled();
    await user.type(typed, 'Acme Corp{Enter}');

    await waitFor(() => expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([base]));
  });

  const scheduled: EnterpriseDetail = { ...detail, isActive: false, deletionScheduledAt: '2026-12-01T12:00:00Z', purgeAfter: '2026-12-31T12:00:00Z' };

  it('restores a scheduled enterprise in one click', async () => {
    let current = scheduled;
    const { calls } = mockDetail({
      [`GET ${base}`]: () => jsonResponse(200, current),
      [`POST ${base}/restore`]: () => {
        current = { ...detail, isActive: true };
        return jsonResponse(200, current);
      },
    });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    const banner = await screen.findByRole('region', { name: 'Deletion scheduled' });
    await user.click(within(banner).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('Acme Corp was restored: nothing was lost.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Deletion scheduled' })).not.toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Delete' })).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([`${base}/restore`]);
  });

  it('says so when the deletion was undone meanwhile (409)', async () => {
    mockDetail({
      [`GET ${base}`]: jsonResponse(200, scheduled),
      [`POST ${base}/restore`]: jsonResponse(409, {
        code: 'conflict',
        reason: 'deletion_not_scheduled',
        message: 'This enterprise is not scheduled for deletion',
      }),
    });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    const banner = await screen.findByRole('region', { name: 'Deletion scheduled' });
    await user.click(within(banner).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('The enterprise could not be restored')).toBeInTheDocument();
    expect(screen.getByText('This enterprise is not scheduled for deletion any more. Reload the page.')).toBeInTheDocument();
  });

  it('purges now only once the name is typed again, then returns to the list', async () => {
    const { calls } = mockDetail({ [`GET ${base}`]: jsonResponse(200, scheduled), [`POST ${base}/purge`]: new Response(null, { status: 204 }) });
    const user = userEvent.setup();
    const { location } = renderApp(`/admin/enterprises/${detail.id}`);

    const banner = await screen.findByRole('region', { name: 'Deletion scheduled' });
    await user.click(within(banner).getByRole('button', { name: 'Purge now' }));
    const dialog = await screen.findByRole('dialog', { name: 'Purge enterprise now' });
    expect(dialog).toHaveTextContent('Purge the enterprise “Acme Corp” now, without waiting for Dec 31, 2026?');
    expect(dialog).toHaveTextContent('This action cannot be undone.');
    expect(dialog).toHaveTextContent('its audit history');
    const confirm = within(dialog).getByRole('button', { name: 'Purge enterprise' });
    const typed = within(dialog).getByRole('textbox', { name: "Type the enterprise's name to confirm" });
    await user.type(typed, 'acme corp{Enter}');
    expect(confirm).toBeDisabled();
    expect(calls.some((call) => call.path.endsWith('/purge'))).toBe(false);
    await user.clear(typed);
    await user.type(typed, 'Acme Corp');
    await user.click(confirm);

    await waitFor(() => expect(location().pathname).toBe('/admin/enterprises'));
    expect(await screen.findByText('The enterprise “Acme Corp” was purged')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([{ method: 'POST', path: `${base}/purge`, body: { confirmName: 'Acme Corp' } }]);
  });

  it('says a scheduled deletion, its restore and its purge in French', async () => {
    mockDetail({ [`GET ${base}`]: jsonResponse(200, scheduled) });
    await act(() => changeLocale('fr'));
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    const banner = await screen.findByRole('region', { name: 'Suppression programmée' });
    expect(banner).toHaveTextContent(
      'Acme Corp est suspendue : personne ne peut se connecter, et ses jetons et webhooks sont arrêtés. Ses données seront effacées définitivement le 31 déc. 2026.',
    );
    expect(within(banner).getByRole('button', { name: 'Restaurer' })).toBeInTheDocument();
    await user.click(within(banner).getByRole('button', { name: 'Purger maintenant' }));
    const dialog = await screen.findByRole('dialog', { name: "Purger l'entreprise maintenant" });
    expect(dialog).toHaveTextContent("Purger l'entreprise « Acme Corp » maintenant, sans attendre le 31 déc. 2026 ?");
    expect(dialog).toHaveTextContent('Cette action est irréversible.');
    expect(within(dialog).getByRole('button', { name: "Purger l'entreprise" })).toBeDisabled();
  });

  it('shows a name another enterprise has (409) under the Name field of the edit dialog', async () => {
    mockDetail({ [`PUT ${base}`]: serverErrors.enterpriseNameTaken() });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Acme Corp' });
    const name = within(dialog).getByLabelText(/^Name/);
    await user.clear(name);
    await user.type(name, 'GLOBEX');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    const message = 'An enterprise with this name already exists (names are compared ignoring case and accents). Choose another one.';
    expect(await within(dialog).findByText(message)).toBeInTheDocument();
    expect(name).toHaveAccessibleDescription(message);
    expect(name).toHaveFocus();
    // Said once, at its field: no second message above the form, no toast.
    expect(screen.queryByText('The enterprise could not be updated')).not.toBeInTheDocument();
  });

  it('says a failure no field explains at the top of the edit dialog, not in a toast behind or over it', async () => {
    mockDetail({ [`PUT ${base}`]: serverErrors.internal() });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Acme Corp' });
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    const failure = await within(dialog).findByRole('alert');
    expect(failure).toHaveTextContent('The enterprise could not be updated');
    expect(screen.getAllByText('The enterprise could not be updated')).toHaveLength(1);
    // Closed by hand; a new opening starts without it.
    await user.click(within(failure).getByRole('button', { name: 'Close' }));
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('asks before deactivating: its people are signed out', async () => {
    const { calls } = mockDetail({ [`PUT ${base}`]: jsonResponse(200, { ...detail, isActive: false } satisfies EnterpriseDetail) });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    await user.click(await screen.findByRole('button', { name: 'Deactivate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Deactivate this enterprise?' });
    expect(dialog).toHaveTextContent('Everyone in it is signed out at once');
    await user.click(within(dialog).getByRole('button', { name: 'Deactivate' }));

    expect(await screen.findByText('Acme Corp was deactivated.')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ isActive: false });
  });

  it('edits the name and description in a dialog', async () => {
    const { calls } = mockDetail({ [`PUT ${base}`]: jsonResponse(200, { ...detail, name: 'Acme Group' } satisfies EnterpriseDetail) });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Acme Corp' });
    const name = within(dialog).getByLabelText(/^Name/);
    await user.clear(name);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('This field is required')).toBeInTheDocument();

    await user.type(name, 'Acme Group');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Enterprise updated')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ name: 'Acme Group', description: 'Makes everything' });
  });

  it('says when the enterprise does not exist', async () => {
    const missing = '/api/v1/enterprises/0190f3c2-0000-7000-8000-00000000ffff';
    mockApi({
      [`GET ${missing}`]: serverErrors.notFound(),
      [`GET ${missing}/departments`]: serverErrors.notFound(),
      [`GET ${missing}/users`]: serverErrors.notFound(),
      [`GET ${missing}/reports`]: serverErrors.notFound(),
    });
    renderApp('/admin/enterprises/0190f3c2-0000-7000-8000-00000000ffff');
    expect(await screen.findByText('Enterprise not found')).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'Back to enterprises' })[0]).toHaveAttribute('href', '/admin/enterprises');
  });

  it('offers to try again after a server error', async () => {
    let fail = true;
    mockDetail({ [`GET ${base}`]: () => (fail ? serverErrors.internal() : jsonResponse(200, detail)) });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    expect(await screen.findByText('Server error. Please try again later.', {})).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Corp' })).toBeInTheDocument();
  });

  it('finds the new head on the server as the name is typed, however large the enterprise', async () => {
    const finance = detail.departments.find((department) => department.type === 'finance')!;
    const staff = Array.from({ length: 20 }, (_, i) =>
      makeUser('DepartmentUser', { id: `0190f3c2-0000-7000-8000-0000000001${String(i).padStart(2, '0')}`, fullName: `Person ${i}`, email: `p${i}@acme.test` }),
    );
    const zoe = makeUser('DepartmentUser', { id: '0190f3c2-0000-7000-8000-0000000002ff', fullName: 'Zoe Zed', email: 'zoe@acme.test' });
    const { calls } = mockDetail({
      [`GET ${base}/users`]: ({ url }) => (url.searchParams.get('q') === 'zoe' ? jsonResponse(200, page([zoe])) : jsonResponse(200, page(staff, 145))),
      [`PUT ${base}/departments/${finance.id}`]: jsonResponse(200, { ...finance, head: summaryOf(zoe), members: [summaryOf(zoe)] } satisfies Department),
    });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);

    const region = await screen.findByRole('region', { name: 'Finance' });
    await user.click(within(region).getByRole('button', { name: 'Set head' }));
    const dialog = await screen.findByRole('dialog', { name: 'Head of Finance' });
    expect(await within(dialog).findByText('125 more people match: type a name or an e-mail to narrow the list.')).toBeInTheDocument();

    await user.type(within(dialog).getByRole('combobox', { name: /New head/ }), 'zoe');
    await user.click(await within(dialog).findByRole('option', { name: 'Zoe Zed (zoe@acme.test)' }));
    expect(within(dialog).queryByRole('option', { name: /Person 0/ })).not.toBeInTheDocument();
    expect(calls.some((call) => call.path.includes('/users?') && call.path.includes('q=zoe'))).toBe(true);
    await user.click(within(dialog).getByRole('button', { name: 'Set as head' }));

    await waitFor(() => expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ headId: zoe.id }));
  });
});

describe('an enterprise’s limits', () => {
  it('the admin sets them: an empty one takes the platform’s default, storage is typed in MB, and the usage is read again', async () => {
    let usage = makeUsage({ limits: { apiCallsPerMinute: 600 }, ownLimits: {} });
    const { calls } = mockDetail({
      [`GET ${base}/usage`]: () => jsonResponse(200, usage),
      [`PUT ${base}/limits`]: ({ body }) => {
        const own = body as { people: number | null; storageBytes: number | null };
        usage = makeUsage({
          current: usage.current,
          limits: { people: own.people!, storageBytes: own.storageBytes!, apiCallsPerMinute: 600 },
          ownLimits: { people: own.people!, storageBytes: own.storageBytes! },
        });
        return jsonResponse(200, { limits: usage.limits, ownLimits: usage.ownLimits });
      },
    });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);
    const card = await screen.findByRole('region', { name: 'Usage' });
    await user.click(await within(card).findByRole('button', { name: 'Edit limits' }));
    const dialog = await screen.findByRole('dialog', { name: 'Limits of the enterprise' });

    // Zero is no limit anyone can use: refused before anything is sent.
    await user.type(within(dialog).getByLabelText('People'), '0');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Enter a whole number from 1 up, or leave it empty.')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);

    await user.clear(within(dialog).getByLabelText('People'));
    await user.type(within(dialog).getByLabelText('People'), '25');
    await user.type(within(dialog).getByLabelText('Storage (MB)'), '500');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ people: 25, storageBytes: 500_000_000, apiCallsPerMinute: null });
    expect(await within(card).findByText('1 of 25 people')).toBeInTheDocument();
    expect(within(card).getByText('1.2 MB of 500 MB used')).toBeInTheDocument();
  });

  it('shows a refusal of the server at its field, in French', async () => {
    await changeLocale('fr');
    mockDetail({
      [`PUT ${base}/limits`]: () => jsonResponse(400, { code: 'validation_failed', message: 'Please check your input', fields: { storageBytes: 'invalid' } }),
    });
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}`);
    const card = await screen.findByRole('region', { name: 'Utilisation' });
    await user.click(await within(card).findByRole('button', { name: 'Modifier les limites' }));
    const dialog = await screen.findByRole('dialog', { name: "Limites de l'entreprise" });
    await user.type(within(dialog).getByLabelText('Stockage (Mo)'), '5');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByLabelText('Stockage (Mo)')).toHaveAttribute('aria-invalid', 'true');
    await changeLocale('en');
  });
});
