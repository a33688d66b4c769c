import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { changeLocale } from '@/i18n';
import { mockApi } from '@/testing/api-mock';
import { serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const DEAD = 'This password reset link is invalid or has expired. Links work once, for one hour.';

/** The page's check of its link as it opens: the link works. */
const WORKS = { 'POST /api/v1/auth/password-reset/check': () => new Response(null, { status: 204 }) };

async function choose(password: string, confirm = password) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText(/^New password/, { selector: 'input' }), password);
  await user.type(screen.getByLabelText(/^Confirm the password/, { selector: 'input' }), confirm);
  await user.click(screen.getByRole('button', { name: 'Save the new password' }));
  return user;
}

describe('reset password from an e-mailed link', () => {
  it('saves the new password, then offers to sign in', async () => {
    const { calls } = mockApi({ ...WORKS, 'POST /api/v1/auth/password-reset/confirm': new Response(null, { status: 204 }) });
    const { location } = renderApp('/reset-password?token=tok-123');
    expect(await screen.findByRole('heading', { level: 1, name: 'Choose a new password' })).toBeInTheDocument();

    const user = await choose('a new passphrase');

    expect(await screen.findByRole('status')).toHaveTextContent('Password changedYour password was changed. Sign in with it now.');
    expect(calls.map((call) => call.body)).toEqual([{ token: 'tok-123' }, { token: 'tok-123', password: 'a new passphrase' }]);
    await user.click(screen.getByRole('link', { name: 'Sign in' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(location().pathname).toBe('/login');
  });

  it('says a used or expired link is dead as the page opens, before the new password is typed', async () => {
    const { calls } = mockApi({ 'POST /api/v1/auth/password-reset/check': serverErrors.validation({ token: 'invalid' }) });
    renderApp('/reset-password?token=used');
    expect(await screen.findByRole('alert')).toHaveTextContent(`This link no longer works${DEAD}`);
    expect(screen.queryByLabelText(/^New password/, { selector: 'input' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toHaveAttribute('href', '/forgot-password');
    expect(calls).toEqual([{ method: 'POST', path: '/api/v1/auth/password-reset/check', body: { token: 'used' } }]);
  });

  it('keeps the form when the check could not be made: sending it tells', async () => {
    mockApi({
      'POST /api/v1/auth/password-reset/check': serverErrors.internal(),
      'POST /api/v1/auth/password-reset/confirm': new Response(null, { status: 204 }),
    });
    renderApp('/reset-password?token=tok-123');
    await choose('a new passphrase');
    expect(await screen.findByRole('status')).toHaveTextContent('Password changed');
  });

  it('says when a link died after the page opened, and leads to asking for a new one', async () => {
    mockApi({ ...WORKS, 'POST /api/v1/auth/password-reset/confirm': serverErrors.validation({ token: 'invalid' }) });
    const { location } = renderApp('/reset-password?token=used');
    const user = await choose('a new passphrase');

    expect(await screen.findByRole('alert')).toHaveTextContent(`This link no longer works${DEAD}`);
    expect(screen.queryByLabelText(/^New password/, { selector: 'input' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Ask for a new link' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Forgot your password?' })).toBeInTheDocument();
    expect(location().pathname).toBe('/forgot-password');
  });

  it('says so at once for a link without its token, asking the server nothing', async () => {
    const { calls } = mockApi({});
    renderApp('/reset-password');
    expect(await screen.findByRole('alert')).toHaveTextContent(DEAD);
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toHaveAttribute('href', '/forgot-password');
    expect(calls).toEqual([]);
  });

  it('checks the two fields first, and shows the server’s word on the password under it', async () => {
    const { calls } = mockApi({ ...WORKS, 'POST /api/v1/auth/password-reset/confirm': serverErrors.validation({ password: 'too_weak' }) });
    renderApp('/reset-password?token=tok');
    await choose('short', 'short');
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(calls.map((call) => call.path)).toEqual(['/api/v1/auth/password-reset/check']);

    const user = userEvent.setup();
    const password = screen.getByLabelText(/^New password/, { selector: 'input' });
    const confirm = screen.getByLabelText(/^Confirm the password/, { selector: 'input' });
    await user.clear(password);
    await user.type(password, 'password1');
    await user.clear(confirm);
    await user.type(confirm, 'password2');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    expect(confirm).toHaveAccessibleDescription('The passwords do not match');
    expect(confirm).toHaveFocus();
    expect(calls).toHaveLength(1);

    await user.clear(confirm);
    await user.type(confirm, 'password1');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    expect(await screen.findByText('This password is too common or too easy to guess: choose a longer, less predictable one')).toBeInTheDocument();
    expect(password).toHaveFocus();
  });

  it('speaks French', async () => {
    await changeLocale('fr');
    mockApi({ ...WORKS, 'POST /api/v1/auth/password-reset/confirm': serverErrors.validation({ token: 'invalid' }) });
    renderApp('/reset-password?token=used');
    expect(await screen.findByRole('heading', { level: 1, name: 'Choisissez un nouveau mot de passe' })).toBeInTheDocument();
    await screen.findByRole('button', { name: 'Enregistrer le mot de passe' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    expect(screen.getAllByText('Ce champ est obligatoire')).toHaveLength(2);
    await user.type(screen.getByLabelText(/^Nouveau mot de passe/, { selector: 'input' }), 'password1');
    await user.type(screen.getByLabelText(/^Confirmez le mot de passe/, { selector: 'input' }), 'password1');
    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Ce lien de réinitialisation est invalide ou a expiré. Les liens ne servent qu'une fois, pendant une heure.",
    );
    expect(screen.getByRole('link', { name: 'Demander un nouveau lien' })).toBeInTheDocument();
  });
});
