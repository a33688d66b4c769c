import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { changeLocale } from '@/i18n';
import { mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const CONFIRMATION = 'If an account uses this address, we sent a link to reset its password. It works for one hour.';

async function ask(email: string) {
  const user = userEvent.setup();
  const field = await screen.findByRole('textbox', { name: 'Email' });
  await user.clear(field);
  await user.type(field, email);
  await user.click(screen.getByRole('button', { name: 'Send the link' }));
  return user;
}

describe('forgot password', () => {
  it('says the same for every address, known or not, and whatever the server answered besides a limit', async () => {
    const answers = [jsonResponse(202), jsonResponse(202), serverErrors.notFound()];
    const { calls } = mockApi({ 'POST /api/v1/auth/password-reset': () => answers.shift()! });
    renderApp('/forgot-password');
    expect(await screen.findByRole('heading', { level: 1, name: 'Forgot your password?' })).toBeInTheDocument();

    for (const email of ['known@acme.test', 'nobody@acme.test', 'gone@acme.test']) {
      const user = await ask(` ${email} `);
      expect(await screen.findByRole('status')).toHaveTextContent(`Check your email${CONFIRMATION}`);
      await user.click(screen.getByRole('button', { name: 'Use another address' }));
    }
    expect(calls.map((call) => call.body)).toEqual([{ email: 'known@acme.test' }, { email: 'nobody@acme.test' }, { email: 'gone@acme.test' }]);
  });

  it('says when too many links were asked for, with the wait the server gave', async () => {
    mockApi({ 'POST /api/v1/auth/password-reset': serverErrors.rateLimited(30) });
    renderApp('/forgot-password');
    await ask('known@acme.test');
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many requests. Please try again in 30 seconds.');
    expect(screen.queryByText(CONFIRMATION)).not.toBeInTheDocument();
  });

  it('and without one', async () => {
    mockApi({ 'POST /api/v1/auth/password-reset': apiError(429, { code: 'rate_limited', message: 'Too many attempts. Please try again later.' }) });
    renderApp('/forgot-password');
    await ask('known@acme.test');
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many requests. Please try again later.');
  });

  it('checks the address at the field first, and shows the server’s word on it there', async () => {
    const { calls } = mockApi({ 'POST /api/v1/auth/password-reset': serverErrors.validation({ email: 'invalid_email' }) });
    renderApp('/forgot-password');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Send the link' }));
    expect(screen.getByRole('textbox', { name: 'Email' })).toHaveAccessibleDescription('This field is required');
    expect(screen.getByRole('textbox', { name: 'Email' })).toHaveFocus();

    await ask('not-an-address');
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(calls).toEqual([]);

    await ask('odd@address.test');
    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(calls).toHaveLength(1);
    expect(screen.queryByText(CONFIRMATION)).not.toBeInTheDocument();
  });

  it('speaks French, and leads back to the sign-in page', async () => {
    await changeLocale('fr');
    mockApi({ 'POST /api/v1/auth/password-reset': jsonResponse(202) });
    const { location } = renderApp('/forgot-password');
    const user = userEvent.setup();
    expect(await screen.findByRole('heading', { level: 1, name: 'Mot de passe oublié\u00a0?' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(screen.getByText('Ce champ est obligatoire')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'E-mail' }), 'connu@acme.test');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Si un compte utilise cette adresse, nous lui avons envoyé un lien pour réinitialiser son mot de passe. Il est valable une heure.',
    );
    await user.click(screen.getByRole('link', { name: 'Retour à la connexion' }));
    expect(await screen.findByRole('button', { name: 'Se connecter' })).toBeInTheDocument();
    expect(location().pathname).toBe('/login');
  });
});
