import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ApiToken, CreateApiToken } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeApiToken, makeCreatedApiToken, makeUser, page, serverErrors } from '@/testing/fixtures';
import { selectOptions } from '@/testing/select';
import { renderApp } from '@/app/testing';

const hal = makeUser('DepartmentUser', { fullName: 'Hal Jordan', email: 'hal@acme.test' });
const nightly = makeApiToken();
const deploy = makeApiToken({
  id: '0190f3c2-0000-7000-8000-0000000007a2',
  name: 'CI deploy',
  prefix: 'ept_Zz81p',
  scopes: ['reports:write', 'users:read'],
  lastUsedAt: null,
});
const SECRET = 'ept_k3Xq9sEcReT0nLyOnCe_aBcDeFgHiJkLmNoPqRsTuVwX';
const DAY = 86_400_000;

/** The list as the server keeps it: creating adds to it, revoking removes from it. */
function mockTokens(initial: ApiToken[], extra: Parameters<typeof mockApi>[0] = {}) {
  let tokens = [...initial];
  const api = mockApi({
    'GET /api/v1/api-tokens': () => jsonResponse(200, page(tokens)),
    'POST /api/v1/api-tokens': ({ body }) => {
      const { name, scopes, expiresAt } = body as CreateApiToken;
      const created = makeCreatedApiToken({ id: '0190f3c2-0000-7000-8000-0000000007a9', name, scopes, expiresAt: expiresAt ?? '', token: SECRET });
      const { token: _secret, ...listed } = created;
      tokens = [listed, ...tokens];
      return jsonResponse(201, created);
    },
    [`DELETE /api/v1/api-tokens/${deploy.id}`]: () => {
      tokens = tokens.filter((token) => token.id !== deploy.id);
      return new Response(null, { status: 204 });
    },
    ...extra,
  });
  return api;
}

const row = (name: string) => screen.getAllByTestId('token-row').find((tr) => tr.textContent?.includes(name))!;

async function openForm(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('button', { name: 'New token' }));
  return screen.findByRole('dialog', { name: 'New API token' });
}

describe('API tokens', () => {
  it('opens from the user menu, for every role', async () => {
    mockTokens([]);
    session.start('token', hal);
    const user = userEvent.setup();
    // A page of the signed-in frame that reads nothing of its own.
    const { location } = renderApp('/no-such-page');

    await user.click(await screen.findByRole('button', { name: /^Account menu for Hal Jordan/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'API tokens' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'API tokens' })).toBeInTheDocument();
    expect(location().pathname).toBe('/settings/api-tokens');
  });

  it('lists the tokens: name, prefix, scopes, created, expires and last use', async () => {
    const { calls } = mockTokens([nightly, deploy]);
    session.start('token', hal);
    renderApp('/settings/api-tokens');

    await screen.findByText('CI deploy');
    const first = row('Nightly export');
    expect(within(first).getByTestId('token-prefix')).toHaveTextContent('ept_k3Xq9…');
    expect(within(first).getByTestId('token-prefix').tagName).toBe('CODE');
    expect(first).toHaveTextContent('Reports · read');
    expect(first).toHaveTextContent('Mar 1, 2026');
    expect(first).toHaveTextContent('May 30, 2026');
    expect(first).toHaveTextContent('Mar 2, 2026');
    const second = row('CI deploy');
    expect(second).toHaveTextContent('Reports · write');
    expect(second).toHaveTextContent('Users · read');
    expect(second).toHaveTextContent('Never used');
    expect(screen.getByRole('columnheader', { name: 'Last used' })).toBeInTheDocument();
    expect(calls.map((call) => call.path)).toContain('/api/v1/api-tokens?page=1&pageSize=20');
    // Everything fits on one page: no page buttons.
    expect(screen.queryByRole('navigation', { name: 'API token pages' })).not.toBeInTheDocument();
  });

  it('shows placeholders while the list loads', async () => {
    let answer: (response: Response) => void = () => {};
    mockApi({ 'GET /api/v1/api-tokens': () => new Promise<Response>((resolve) => (answer = resolve)) });
    session.start('token', hal);
    renderApp('/settings/api-tokens');

    const section = (await screen.findByRole('heading', { level: 2, name: 'Your tokens' })).closest('section')!;
    expect(within(section).getByRole('status', { name: 'Loading…' })).toBeInTheDocument();
    act(() => answer(jsonResponse(200, page([nightly]))));
    expect(await within(section).findByText('Nightly export')).toBeInTheDocument();
    expect(within(section).queryByRole('status', { name: 'Loading…' })).not.toBeInTheDocument();
  });

  it('says when there are none yet', async () => {
    mockTokens([]);
    session.start('token', hal);
    renderApp('/settings/api-tokens');

    expect(await screen.findByText('No API tokens yet')).toBeInTheDocument();
    expect(screen.getByText('Create one for a script or program that calls the API for you.')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('pages through more than a page of tokens, the page in the URL', async () => {
    const { calls } = mockApi({
      'GET /api/v1/api-tokens': ({ url }) =>
        jsonResponse(200, page([url.searchParams.get('page') === '2' ? deploy : nightly], 25, 20, Number(url.searchParams.get('page')))),
    });
    session.start('token', hal);
    const user = userEvent.setup();
    const { location } = renderApp('/settings/api-tokens');

    await screen.findByText('Nightly export');
    expect(screen.getByText('Showing 1–20 of 25')).toBeInTheDocument();
    const pages = screen.getByRole('navigation', { name: 'API token pages' });
    await user.click(within(pages).getByRole('button', { name: 'Page 2' }));
    expect(await screen.findByText('CI deploy')).toBeInTheDocument();
    expect(location().search).toBe('?page=2');
    expect(calls.map((call) => call.path)).toContain('/api/v1/api-tokens?page=2&pageSize=20');
  });

  it('creates a token and shows its secret once, with a way to copy it and a request to try it with', async () => {
    const { calls } = mockTokens([nightly]);
    session.start('token', hal);
    const user = userEvent.setup();
    const { queryClient } = renderApp('/settings/api-tokens');

    const form = await openForm(user);
    await user.type(within(form).getByLabelText(/^Name/), '  Weekly report pull ');
    await user.click(within(form).getByRole('checkbox', { name: 'Reports: read' }));
    expect(within(form).getByRole('combobox', { name: 'Expires' })).toHaveValue('In 90 days');
    const before = Date.now();
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    const secret = await screen.findByRole('dialog', { name: 'Copy the new token' });
    const sent = calls.find((call) => call.method === 'POST')!;
    expect(sent.path).toBe('/api/v1/api-tokens');
    const body = sent.body as CreateApiToken;
    expect({ name: body.name, scopes: body.scopes }).toEqual({ name: 'Weekly report pull', scopes: ['reports:read'] });
    // 90 days from when it was sent.
    const expires = Date.parse(body.expiresAt!);
    expect(expires).toBeGreaterThanOrEqual(before + 90 * DAY);
    expect(expires).toBeLessThanOrEqual(Date.now() + 90 * DAY);

    expect(within(secret).getByTestId('token-secret')).toHaveTextContent(SECRET);
    expect(secret).toHaveTextContent(
      'This is the only time the token is shown. Copy it now and keep it somewhere safe: once this window is closed, nobody can show it again.',
    );
    expect(within(secret).getByTestId('token-example')).toHaveTextContent(`curl -H "Authorization: Bearer ${SECRET}" ${window.location.origin}/api/v1/auth/me`);
    await user.click(within(secret).getByRole('button', { name: 'Copy token' }));
    expect(await within(secret).findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(SECRET);

    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // Back on the list, which has the new token; its secret is nowhere any more.
    expect(await screen.findByText('Weekly report pull')).toBeInTheDocument();
    expect(row('Weekly report pull')).toHaveTextContent('Never used');
    expect(document.body).not.toHaveTextContent(SECRET);
    // Nor is it kept in the query client's memory of the request.
    await waitFor(() =>
      expect(
        JSON.stringify(
          queryClient
            .getMutationCache()
            .getAll()
            .map((mutation) => mutation.state.data),
        ),
      ).not.toContain(SECRET),
    );
  });

  it('checking write checks read too; read stays while write is checked', async () => {
    const { calls } = mockTokens([]);
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/settings/api-tokens');

    const form = await openForm(user);
    const read = within(form).getByRole('checkbox', { name: 'Users: read' });
    const write = within(form).getByRole('checkbox', { name: 'Users: write' });
    await user.click(write);
    expect(write).toBeChecked();
    expect(read).toBeChecked();
    expect(read).toBeDisabled();
    await user.click(write);
    expect(write).not.toBeChecked();
    expect(read).toBeChecked();
    expect(read).toBeEnabled();
    await user.click(write);

    await user.type(within(form).getByLabelText(/^Name/), 'Sync');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    await screen.findByRole('dialog', { name: 'Copy the new token' });
    // Write includes read: only the write scope is sent.
    expect((calls.find((call) => call.method === 'POST')?.body as CreateApiToken).scopes).toEqual(['users:write']);
  });

  it('shows what is missing before sending, and the server’s refusals under their fields', async () => {
    const { calls } = mockTokens([], {
      'POST /api/v1/api-tokens': serverErrors.validation({ name: 'too_long', scopes: 'invalid', expiresAt: 'invalid' }),
    });
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/settings/api-tokens');

    const form = await openForm(user);
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    const name = within(form).getByLabelText(/^Name/);
    expect(within(form).getByText('This field is required')).toBeInTheDocument();
    expect(within(form).getByText('Choose at least one scope')).toBeInTheDocument();
    expect(name).toHaveFocus();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    await user.type(name, 'Exporter');
    await user.click(within(form).getByRole('checkbox', { name: 'Dashboards: read' }));
    expect(within(form).queryByText('Choose at least one scope')).not.toBeInTheDocument();
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    expect(await within(form).findByText('This text is too long')).toBeInTheDocument();
    expect(within(form).getByText('The server does not know one of these scopes')).toBeInTheDocument();
    const expiry = within(form).getByRole('combobox', { name: 'Expires' });
    expect(within(expiry.closest('.mantine-InputWrapper-root') as HTMLElement).getByText('Choose a day after today, at most a year ahead')).toBeInTheDocument();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    // Said at the fields, once: no second message above the form, no toast.
    expect(screen.queryByText('The token could not be created')).not.toBeInTheDocument();
    // The form stays open, as filled in.
    expect(name).toHaveValue('Exporter');
    expect(screen.queryByRole('dialog', { name: 'Copy the new token' })).not.toBeInTheDocument();
  });

  it('says so when there are already 50 tokens', async () => {
    mockTokens([], {
      'POST /api/v1/api-tokens': () =>
        jsonResponse(409, { code: 'conflict', message: 'There are already 50 live tokens; revoke one first', reason: 'too_many_tokens' }),
    });
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/settings/api-tokens');

    const form = await openForm(user);
    await user.type(within(form).getByLabelText(/^Name/), 'One more');
    await user.click(within(form).getByRole('checkbox', { name: 'Reports: read' }));
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('There are already 50 live tokens. Revoke one that is no longer used first.')).toBeInTheDocument();
  });

  it('expires on a day of one’s choice: the end of that day', async () => {
    const { calls } = mockTokens([]);
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/settings/api-tokens');

    const form = await openForm(user);
    await user.type(within(form).getByLabelText(/^Name/), 'Quarter close');
    await user.click(within(form).getByRole('checkbox', { name: 'Spreadsheets: read' }));
    const expiry = within(form).getByRole('combobox', { name: 'Expires' });
    await user.click(expiry);
    const options = await selectOptions(expiry);
    expect(options.map((option) => option.textContent)).toEqual(['In 30 days', 'In 90 days', 'In 1 year', 'On a date of my choice']);
    await user.click(options[3]);

    const today = new Date();
    const day = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 10);
    const typed = `${String(day.getMonth() + 1).padStart(2, '0')}/${String(day.getDate()).padStart(2, '0')}/${day.getFullYear()}`;
    await user.type(within(form).getByLabelText(/^Expiry date/), typed);
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    await screen.findByRole('dialog', { name: 'Copy the new token' });
    const endOfDay = new Date(day.getFullYear(), day.getMonth(), day.getDate(), 23, 59, 59);
    expect((calls.find((call) => call.method === 'POST')?.body as CreateApiToken).expiresAt).toBe(endOfDay.toISOString());
  });

  it('asks before revoking, naming the token, and revokes only once confirmed', async () => {
    const { calls } = mockTokens([nightly, deploy]);
    session.start('token', hal);
    const user = userEvent.setup();
    renderApp('/settings/api-tokens');

    await user.click(await screen.findByRole('button', { name: 'Revoke CI deploy' }));
    let dialog = await screen.findByRole('dialog', { name: 'Revoke this token?' });
    expect(dialog).toHaveTextContent('Programs that use “CI deploy” (ept_Zz81p…) are refused from now on.');
    expect(dialog).toHaveTextContent('This cannot be undone.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Revoke CI deploy' }));
    dialog = await screen.findByRole('dialog', { name: 'Revoke this token?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('“CI deploy” was revoked.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([`/api/v1/api-tokens/${deploy.id}`]);
    await waitFor(() => expect(screen.queryByText('CI deploy')).not.toBeInTheDocument());
    expect(screen.getByText('Nightly export')).toBeInTheDocument();
  });

  it('is in French too', async () => {
    mockTokens([deploy]);
    session.start('token', hal);
    await act(() => changeLocale('fr'));
    const user = userEvent.setup();
    renderApp('/settings/api-tokens');

    expect(await screen.findByRole('heading', { level: 1, name: "Jetons d'API" })).toBeInTheDocument();
    expect(await screen.findByText('Jamais utilisé')).toBeInTheDocument();
    expect(row('CI deploy')).toHaveTextContent('Rapports · écriture');
    const form = await (async () => {
      await user.click(screen.getByRole('button', { name: 'Nouveau jeton' }));
      return screen.findByRole('dialog', { name: "Nouveau jeton d'API" });
    })();
    expect(within(form).getByRole('checkbox', { name: 'Rapports\u00a0: lecture' })).toBeInTheDocument();
    expect(within(form).getByRole('combobox', { name: 'Expiration' })).toHaveValue('Dans 90 jours');
  });
});
