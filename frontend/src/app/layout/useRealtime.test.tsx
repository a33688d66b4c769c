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

describe("the monitors' session events", () => {
  it('refresh the monitoring lists, the map and the own sessions at once, then at most every 2 s however many come (a platform-wide sessions_changed included)', async () => {
    vi.useFakeTimers();
    try {
      session.start('token', makeUser('PlatformAdmin', { id: 'admin-1' }));
      const client = new QueryClient();
      const invalidated = vi.spyOn(client, 'invalidateQueries');
      const { unmount } = renderHook(() => useRealtime(client));
      const socket = FakeSocket.all[0]!;
      socket.onopen?.();
      socket.serverSays({ type: 'ready' });

      socket.serverSays({ type: 'monitoring.session_started', sessionId: 's1', userId: 'u1', enterpriseId: null });
      expect(invalidated).toHaveBeenCalledTimes(1);
      const refreshed = invalidated.mock.calls[0]![0]!.predicate!;
      const query = (path: string) => ({ queryKey: [path] }) as unknown as Parameters<typeof refreshed>[0];
      expect(refreshed(query('/api/v1/monitoring/places'))).toBe(true);
      expect(refreshed(query('/api/v1/monitoring/sessions'))).toBe(true);
      expect(refreshed(query('/api/v1/auth/sessions'))).toBe(true);
      expect(refreshed(query('/api/v1/users'))).toBe(false);

      for (let second = 0; second < 3; second += 1) {
        socket.serverSays({ type: 'monitoring.sessions_changed', enterpriseId: null, started: 30, updated: 400, ended: 12 });
        await vi.advanceTimersByTimeAsync(500);
      }
      // 1.5 s later: still one refresh; the gathered ones come once at the end of the 2 s.
      expect(invalidated).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(500);
      expect(invalidated).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(5000);
      expect(invalidated).toHaveBeenCalledTimes(2);
      unmount();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('one of your own sessions starting or ending elsewhere', () => {
  it('refreshes "Your sessions" (own_sessions.changed), for any role', async () => {
    session.start('token', makeUser('DepartmentUser', { id: 'user-1' }));
    const client = new QueryClient();
    const invalidated = vi.spyOn(client, 'invalidateQueries');
    const { unmount } = renderHook(() => useRealtime(client));
    const socket = FakeSocket.all[0]!;
    socket.onopen?.();
    socket.serverSays({ type: 'ready' });

    socket.serverSays({ type: 'own_sessions.changed', userId: 'user-1' });
    expect(invalidated).toHaveBeenCalledTimes(1);
    const refreshed = invalidated.mock.calls[0]![0]!.predicate!;
    const query = (path: string) => ({ queryKey: [path] }) as unknown as Parameters<typeof refreshed>[0];
    expect(refreshed(query('/api/v1/auth/sessions'))).toBe(true);
    unmount();
  });
});
