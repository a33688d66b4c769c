import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from './testing';

// The forgot-password screen's chunk cannot be loaded, as after a deploy that removed it.
vi.mock('@/features/auth/screens/ForgotPasswordScreen', () => {
  throw new TypeError('Failed to fetch dynamically imported module');
});

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

describe('a screen that fails to load', () => {
  it('shows the error screen with a reload button, until the user goes to another page', async () => {
    const user = userEvent.setup();
    const { location, navigate } = renderApp('/login');

    await user.click(await screen.findByRole('link', { name: 'Forgot password?' }));

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Something went wrong');
    expect(alert).toHaveTextContent('This page could not be displayed. Reloading usually helps, for example after an update.');
    expect(screen.getByRole('button', { name: 'Reload the page' })).toBeInTheDocument();
    expect(location().pathname).toBe('/forgot-password');
    expect(console.error).toHaveBeenCalledWith('[app] route error', expect.any(Error), expect.any(String));

    navigate('/login');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.queryByText('Something went wrong')).not.toBeInTheDocument();
  });
});
