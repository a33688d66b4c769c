import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import {
  jsonResponse,
  makeEnterprise,
  makeEnterpriseDetail,
  makeEnterpriseSecurityPolicy,
  makeSsoSettings,
  makeUser,
  page,
  serverErrors,
  makeUsage,
} from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { optionNames, selectOptions } from '@/testing/select';

beforeEach(() => session.start('token', makeUser('PlatformAdmin')));

async function fill(values: Partial<Record<'name' | 'ceoFullName' | 'ceoEmail' | 'ceoPassword', string>>) {
  const user = userEvent.setup();
  const labels = { name: /^Name/, ceoFullName: /^CEO full name/, ceoEmail: /^CEO email/, ceoPassword: /^CEO password/ } as const;
  // A password given: set it now rather than invite (the default).
  if (values.ceoPassword !== undefined && !screen.queryByLabelText(labels.ceoPassword)) {
    await user.click(screen.getByRole('radio', { name: 'Set a password now' }));
  }
  for (const [field, value] of Object.entries(values) as [keyof typeof labels, string][]) {
    const input = screen.getByLabelText(labels[field]);
    await user.clear(input);
    await user.type(input, value);
  }
  await user.click(screen.getByRole('button', { name: 'Create enterprise' }));
}

describe('create an enterprise', () => {
  it('checks the fields first, with the texts of SPEC §5, and focuses the first wrong one', async () => {
    const { calls } = mockApi({});
    renderApp('/admin/enterprises/create');
    await screen.findByRole('heading', { level: 1, name: 'Create an enterprise' });
    // Inviting (the default) asks for no password.
    expect(screen.getByRole('radio', { name: 'Send an invitation by e-mail' })).toBeChecked();
    expect(screen.queryByLabelText(/^CEO password/)).not.toBeInTheDocument();
    await fill({});
    expect(screen.getAllByText('This field is required')).toHaveLength(3);

    await userEvent.setup().click(screen.getByRole('radio', { name: 'Set a password now' }));
    expect(screen.getByText('Minimum 8 characters required')).toBeInTheDocument();
    await fill({});
    expect(screen.getAllByText('This field is required')).toHaveLength(4);
    expect(screen.getByLabelText(/^Name/)).toHaveFocus();

    await fill({ name: 'Acme', ceoFullName: 'Cora', ceoEmail: 'nope', ceoPassword: 'short' });
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('sends the enterprise and its CEO, says so and opens the new enterprise', async () => {
    const created = makeEnterprise({ name: 'Acme' });
    const { calls } = mockApi({
      'POST /api/v1/enterprises': jsonResponse(201, created),
      [`GET /api/v1/enterprises/${created.id}`]: jsonResponse(200, makeEnterpriseDetail({ name: 'Acme' })),
      [`GET /api/v1/enterprises/${created.id}/departments`]: jsonResponse(200, makeEnterpriseDetail().departments),
      [`GET /api/v1/enterprises/${created.id}/users`]: jsonResponse(200, page([])),
      [`GET /api/v1/enterprises/${created.id}/reports`]: jsonResponse(200, page([])),
      [`GET /api/v1/enterprises/${created.id}/security-policy`]: () => jsonResponse(200, makeEnterpriseSecurityPolicy()),
      [`GET /api/v1/enterprises/${created.id}/exports`]: () => jsonResponse(200, []),
      [`GET /api/v1/enterprises/${created.id}/usage`]: () => jsonResponse(200, makeUsage()),
      [`GET /api/v1/enterprises/${created.id}/sso`]: () => jsonResponse(200, makeSsoSettings()),
    });
    const { location } = renderApp('/admin/enterprises/create');
    await screen.findByRole('heading', { level: 1, name: 'Create an enterprise' });

    await fill({ name: '  Acme ', ceoFullName: 'Cora Ceo', ceoEmail: 'cora@acme.test', ceoPassword: 'password1' });

    expect(await screen.findByText('Enterprise created successfully')).toBeInTheDocument();
    await waitFor(() => expect(location().pathname).toBe(`/admin/enterprises/${created.id}`));
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      name: 'Acme',
      ceoFullName: 'Cora Ceo',
      ceoEmail: 'cora@acme.test',
      ceoPassword: 'password1',
      ceoLocale: 'en',
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme' })).toBeInTheDocument();
  });

  it('invites the CEO by default: no password is sent, their language is, and the notification names the address', async () => {
    const created = makeEnterprise({ name: 'Acme' });
    const { calls } = mockApi({
      'POST /api/v1/enterprises': jsonResponse(201, created),
      [`GET /api/v1/enterprises/${created.id}`]: jsonResponse(200, makeEnterpriseDetail({ name: 'Acme' })),
      [`GET /api/v1/enterprises/${created.id}/departments`]: jsonResponse(200, makeEnterpriseDetail().departments),
      [`GET /api/v1/enterprises/${created.id}/users`]: jsonResponse(200, page([])),
      [`GET /api/v1/enterprises/${created.id}/reports`]: jsonResponse(200, page([])),
      [`GET /api/v1/enterprises/${created.id}/security-policy`]: () => jsonResponse(200, makeEnterpriseSecurityPolicy()),
      [`GET /api/v1/enterprises/${created.id}/exports`]: () => jsonResponse(200, []),
      [`GET /api/v1/enterprises/${created.id}/usage`]: () => jsonResponse(200, makeUsage()),
      [`GET /api/v1/enterprises/${created.id}/sso`]: () => jsonResponse(200, makeSsoSettings()),
    });
    renderApp('/admin/enterprises/create');
    await screen.findByRole('heading', { level: 1, name: 'Create an enterprise' });
    const user = userEvent.setup();
    const language = screen.getByRole('combobox', { name: /^Language of their e-mails/ });
    expect(language).toHaveValue('English');
    await user.click(language);
    expect(await optionNames(language)).toEqual(['English', 'Français']);
    await user.click((await selectOptions(language))[1]);

    await fill({ name: 'Acme', ceoFullName: 'Cora Ceo', ceoEmail: 'cora@acme.test' });

    expect(await screen.findByText('Enterprise created: an invitation was sent to cora@acme.test')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ name: 'Acme', ceoFullName: 'Cora Ceo', ceoEmail: 'cora@acme.test', ceoLocale: 'fr' });
  });

  it("shows the server's field errors on the fields", async () => {
    mockApi({
      'POST /api/v1/enterprises': serverErrors.validation({ ceoEmail: 'invalid_email', ceoPassword: 'too_short' }),
    });
    renderApp('/admin/enterprises/create');
    await screen.findByRole('heading', { level: 1, name: 'Create an enterprise' });

    await fill({ name: 'Acme', ceoFullName: 'Cora', ceoEmail: 'cora@acme.test', ceoPassword: 'password1' });

    expect(await screen.findByText('Failed to create enterprise')).toBeInTheDocument();
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(screen.getByLabelText(/^CEO email/)).toHaveFocus();
  });

  it('explains a taken CEO e-mail address (409), in French too', async () => {
    mockApi({ 'POST /api/v1/enterprises': serverErrors.emailTaken('ceoEmail') });
    renderApp('/admin/enterprises/create');
    await screen.findByRole('heading', { level: 1, name: 'Create an enterprise' });

    await fill({ name: 'Acme', ceoFullName: 'Cora', ceoEmail: 'taken@acme.test', ceoPassword: 'password1' });

    expect(await screen.findByText('Failed to create enterprise')).toBeInTheDocument();
    expect(screen.getByText('The CEO email address cannot be used. Choose another one.')).toBeInTheDocument();
    expect(screen.getByText('This email address cannot be used. Choose another one.')).toBeInTheDocument();

    await act(() => changeLocale('fr'));
    expect(await screen.findByText('Cette adresse e-mail ne peut pas être utilisée. Choisissez-en une autre.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Créer une entreprise' })).toBeInTheDocument();
  });

  it('shows a taken enterprise name (409, ignoring case and accents) under the Name field, not the CEO e-mail, in French too', async () => {
    mockApi({ 'POST /api/v1/enterprises': serverErrors.enterpriseNameTaken() });
    renderApp('/admin/enterprises/create');
    await screen.findByRole('heading', { level: 1, name: 'Create an enterprise' });

    await fill({ name: 'ACME industries', ceoFullName: 'Cora', ceoEmail: 'cora@acme.test', ceoPassword: 'password1' });

    expect(await screen.findByText('Failed to create enterprise')).toBeInTheDocument();
    const message = 'An enterprise with this name already exists (names are compared ignoring case and accents). Choose another one.';
    expect(screen.getAllByText(message)).toHaveLength(2); // toast and field
    const name = screen.getByLabelText(/^Name/);
    expect(name).toHaveAccessibleDescription(message);
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveFocus();
    expect(screen.getByLabelText(/^CEO email/)).not.toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText('The CEO email address cannot be used. Choose another one.')).not.toBeInTheDocument();

    await act(() => changeLocale('fr'));
    expect(
      await screen.findAllByText('Une entreprise porte déjà ce nom (sans tenir compte des majuscules ni des accents). Choisissez-en un autre.'),
    ).not.toHaveLength(0);
  });

  it('a retry that succeeds after a taken CEO e-mail takes the failure away: the success is shown alone', async () => {
    const created = makeEnterprise({ name: 'Acme' });
    let attempts = 0;
    mockApi({
      'POST /api/v1/enterprises': () => (++attempts === 1 ? serverErrors.emailTaken('ceoEmail') : jsonResponse(201, created)),
      [`GET /api/v1/enterprises/${created.id}`]: jsonResponse(200, makeEnterpriseDetail({ name: 'Acme' })),
      [`GET /api/v1/enterprises/${created.id}/departments`]: jsonResponse(200, makeEnterpriseDetail().departments),
      [`GET /api/v1/enterprises/${created.id}/users`]: jsonResponse(200, page([])),
      [`GET /api/v1/enterprises/${created.id}/reports`]: jsonResponse(200, page([])),
      [`GET /api/v1/enterprises/${created.id}/security-policy`]: () => jsonResponse(200, makeEnterpriseSecurityPolicy()),
      [`GET /api/v1/enterprises/${created.id}/exports`]: () => jsonResponse(200, []),
      [`GET /api/v1/enterprises/${created.id}/usage`]: () => jsonResponse(200, makeUsage()),
      [`GET /api/v1/enterprises/${created.id}/sso`]: () => jsonResponse(200, makeSsoSettings()),
    });
    renderApp('/admin/enterprises/create');
    await screen.findByRole('heading', { level: 1, name: 'Create an enterprise' });

    await fill({ name: 'Acme', ceoFullName: 'Cora', ceoEmail: 'taken@acme.test', ceoPassword: 'password1' });
    expect(await screen.findByText('Failed to create enterprise')).toBeInTheDocument();

    await fill({ ceoEmail: 'cora@acme.test' });
    expect(await screen.findByText('Enterprise created successfully')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Failed to create enterprise')).not.toBeInTheDocument());
    expect(screen.queryByText('The CEO email address cannot be used. Choose another one.')).not.toBeInTheDocument();
  });
});
