import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { serverErrors } from '@/testing/fixtures';
import { renderApp } from './testing';

// The signed-out pages get the English strings that load with the app (i18n/index.ts); the rest
// come with the signed-in frame. A key they lack would show as the key itself.
const missing: string[] = [];

beforeEach(() => {
  i18n.options.saveMissing = true;
  i18n.options.missingKeyHandler = (_languages, _namespace, key) => void missing.push(key);
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});

afterEach(() => {
  i18n.options.saveMissing = false;
  i18n.options.missingKeyHandler = false;
  missing.length = 0;
});

describe('the signed-out pages', () => {
  it('start without the strings of the signed-in screens', () => {
    expect(i18n.exists('auth.login.submit')).toBe(true);
    expect(i18n.exists('reports.list.title')).toBe(false);
    expect(i18n.exists('nav.dashboard')).toBe(false);
    // ...and a key they lack is noticed.
    expect(i18n.t('nav.dashboard')).toBe('nav.dashboard');
    expect(missing).toEqual(['nav.dashboard']);
  });

  it('sign in, explain a refusal and lead to the forgot-password page with the strings loaded with the app', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => serverErrors.invalidCredentials()),
    );
    const user = userEvent.setup();
    renderApp('/login');
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(screen.getAllByText('This field is required')).toHaveLength(2);
    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'a@b.co');
    await user.type(screen.getByLabelText(/^Password/, { selector: 'input' }), 'password1');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');

    await user.click(screen.getByRole('link', { name: 'Forgot password?' }));
    expect(await screen.findByRole('heading', { name: 'Forgot your password?' })).toBeInTheDocument();
    expect(missing).toEqual([]);
  });

  it('show an unknown page with the strings loaded with the app', async () => {
    renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(missing).toEqual([]);
  });
});
