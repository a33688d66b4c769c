import { notifications } from '@mantine/notifications';
import { QueryClient } from '@tanstack/react-query';
import { renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { changeLocale } from '@/i18n';
import '@/i18n/signed-in';
import { session } from '@/lib/session';
import { makeUser } from '@/testing/fixtures';
import { useRealtime } from './useRealtime';

/** The tab's socket, played by the test. */
class FakeSocket {
  static all: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onclose: ((e: CloseEvent) => void) | null = null;
  constructor() {
    FakeSocket.all.push(this);
  }
  send() {}
  close() {}
  serverSays(data: object) {
    this.onmessage?.({ data: JSON.stringify(data) } as MessageEvent);
  }
}

beforeEach(() => {
  FakeSocket.all = [];
  vi.stubGlobal('WebSocket', FakeSocket);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('a report moved while the tab is open', () => {
  it('is told in a toast to the others, but not to the person who moved it (their action said so)', async () => {
    await changeLocale('en');
    const ceo = makeUser('EnterpriseCeo', { id: 'ceo-1', fullName: 'Cora Ceo' });
    session.start('token', ceo);
    const show = vi.spyOn(notifications, 'show');
    renderHook(() => useRealtime(new QueryClient()));
    const socket = FakeSocket.all[0]!;
    socket.onopen?.();
    socket.serverSays({ type: 'ready' });
    const moved = { type: 'report.status_changed', reportId: 'r1', departmentId: 'd1', title: 'Q1', fromStatus: 'submitted', status: 'rejected' };

    socket.serverSays({ ...moved, actorId: 'ceo-1' });
    expect(show).not.toHaveBeenCalled();
    socket.serverSays({ ...moved, status: 'approved', actorId: 'someone-else' });
    expect(show).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ message: 'Report “Q1” is now Approved' }));
  });
});

describe('a webhook turned off for failing', () => {
  it('is told to its owner in a toast that stays, in their language', async () => {
    await changeLocale('fr');
    session.start('token', makeUser('EnterpriseCeo', { id: 'ceo-2', fullName: 'Cora Ceo' }));
    const show = vi.spyOn(notifications, 'show');
    renderHook(() => useRealtime(new QueryClient()));
    const socket = FakeSocket.all[0]!;
    socket.onopen?.();
    socket.serverSays({ type: 'ready' });

    socket.serverSays({ type: 'webhook.disabled', webhookId: 'w1', url: 'https://erp.example/hook' });
    expect(show).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({
        autoClose: false,
        message:
          'Le webhook https://erp.example/hook a été désactivé : ses livraisons échouent depuis cinq jours. Réparez le destinataire, puis réactivez-le dans Intégrations.',
      }),
    );
    await changeLocale('en');
  });
});
