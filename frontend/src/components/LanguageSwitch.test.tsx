import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeUser } from '@/testing/fixtures';
import { LanguageSwitch } from './LanguageSwitch';

function renderSwitch() {
  render(
    <MantineProvider env="test">
      <LanguageSwitch />
    </MantineProvider>,
  );
}

describe('the language switch', () => {
  it('opens its lazily loaded menu on the first click and switches the language', async () => {
    const user = userEvent.setup();
    render(
      <MantineProvider env="test">
        <LanguageSwitch />
      </MantineProvider>,
    );
    const button = await screen.findByRole('button', { name: 'Language: English, EN' });
    expect(button).toHaveTextContent(/^EN$/);
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    await user.click(button);

    const menu = await screen.findByRole('menu');
    expect(Array.from(menu.querySelectorAll('[role="menuitem"]'), (item) => item.textContent)).toEqual(['English', 'Français']);
    // The menu's own button took over from the one clicked (LanguageMenu replaces LanguageSwitch's).
    expect(screen.getByRole('button', { name: 'Language: English, EN' })).toHaveAttribute('aria-expanded', 'true');
    await user.click(screen.getByRole('menuitem', { name: 'Français' }));

    // French puts a no-break space before the colon.
    expect(await screen.findByRole('button', { name: 'Langue\u00a0: Français, FR' })).toHaveTextContent(/^FR$/);
    await waitFor(() => expect(document.documentElement.lang).toBe('fr'));
    expect(localStorage.getItem('locale')).toBe('fr');
  });

  it("keeps a signed-in person's choice on their account too, without waiting for it", async () => {
    const me = makeUser('DepartmentUser', { locale: 'en' });
    session.start('tok', me);
    let answer!: (response: Response) => void;
    const { calls } = mockApi({ 'PUT /api/v1/auth/me': () => new Promise<Response>((resolve) => (answer = resolve)) });
    const user = userEvent.setup();
    renderSwitch();
    await user.click(await screen.findByRole('button', { name: 'Language: English, EN' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Français' }));

    // The interface switched before the server answered.
    expect(await screen.findByRole('button', { name: 'Langue\u00a0: Français, FR' })).toBeInTheDocument();
    expect(calls).toEqual([{ method: 'PUT', path: '/api/v1/auth/me', body: { locale: 'fr' } }]);
    answer(jsonResponse(200, { ...me, locale: 'fr' }));
    await waitFor(() => expect(session.get()).toMatchObject({ user: { locale: 'fr' } }));
  });

  it('asks nothing of the server when signed out', async () => {
    const { calls } = mockApi({});
    const user = userEvent.setup();
    renderSwitch();
    await user.click(await screen.findByRole('button', { name: 'Language: English, EN' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Français' }));
    expect(await screen.findByRole('button', { name: 'Langue\u00a0: Français, FR' })).toBeInTheDocument();
    expect(calls).toEqual([]);
  });
});
