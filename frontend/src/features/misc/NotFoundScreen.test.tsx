import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '@/app/testing';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { makeUser } from '@/testing/fixtures';

describe('the not-found page, signed out', () => {
  it('has the logo, the language switch and a way to the sign-in page', async () => {
    const user = userEvent.setup();
    const { location } = renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('banner')).toHaveTextContent('Enterprise Platform');
    expect(screen.getByRole('button', { name: /^Language: English/ })).toBeInTheDocument();
    expect(screen.getByRole('main')).toContainElement(screen.getByRole('heading', { level: 1 }));

    await user.click(screen.getByRole('link', { name: 'Go to the sign-in page' }));
    expect(location().pathname).toBe('/login');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });
});

describe('the not-found page, signed in', () => {
  it('is inside the app frame, with the way to the home page', async () => {
    mockApi({});
    session.start('token', makeUser('EnterpriseCeo'));
    renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute('href', '/');
  });
});
