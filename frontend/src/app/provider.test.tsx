import { notifications } from '@mantine/notifications';
import { act, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { session } from '@/lib/session';
import { makeUser } from '@/testing/fixtures';
import { AppProvider } from './provider';

describe('AppProvider', () => {
  afterEach(() => {
    act(() => {
      session.end('signed_out');
      notifications.clean();
    });
  });

  it("takes the last user's toasts away when their session ends, and shows the next ones", async () => {
    render(
      <AppProvider env="test">
        <p>screen</p>
      </AppProvider>,
    );
    act(() => session.start('token', makeUser('DepartmentUser')));
    act(() => void notifications.show({ message: 'Passkey “Work laptop” removed', autoClose: false }));
    expect(await screen.findByText('Passkey “Work laptop” removed')).toBeInTheDocument();

    act(() => session.end('signed_out'));
    await waitFor(() => expect(screen.queryByText('Passkey “Work laptop” removed')).not.toBeInTheDocument());

    act(() => void notifications.show({ message: 'Check your inbox', autoClose: false }));
    expect(await screen.findByText('Check your inbox')).toBeInTheDocument();
  });
});
