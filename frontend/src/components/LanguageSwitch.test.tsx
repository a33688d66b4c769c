import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { LanguageSwitch } from './LanguageSwitch';

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
});
