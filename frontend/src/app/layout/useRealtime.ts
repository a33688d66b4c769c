import { notifications } from '@mantine/notifications';
import { type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { recordActivity } from '@/api/generated/monitoring/monitoring';
import type { ReportStatus } from '@/api/generated/model';
import { handleMessagingEvent, isMessagingEvent } from '@/lib/messaging-live';
import { invalidate } from '@/lib/query-invalidation';
import { connectRealtime, type RealtimeEvent } from '@/lib/realtime';
import { endNotice, session } from '@/lib/session';
import { throttle } from '@/lib/throttle';

const HEARTBEAT_MS = 60_000;
/**
 * The monitors' events (one per session, or a count for many: `monitoring.sessions_changed`)
 * refresh the sessions' lists, map and counts at most this often: at platform scale they come
 * every second.
 */
export const MONITORING_REFRESH_MS = 2_000;

/**
 * While signed in: the tab's real-time socket and its heartbeat. Events refresh what they
 * concern (the cache is invalidated; screens refetch; the messenger's events through
 * lib/messaging-live.ts, which also keeps who is typing), a report's new status is told in a
 * toast, the monitors' session events (and `own_sessions.changed`, one's own sessions starting or ending) refresh the sessions at most every 2 s, a webhook turned off for failing is told in one that stays, and an ended session lands on /login with the expiry text at once. The heartbeat
 * (every minute while the tab is visible and the user was active) keeps the session's
 * `lastSeenAt` moving for the monitors.
 */
export function useRealtime(queryClient: QueryClient) {
  const { t } = useTranslation();

  useEffect(() => {
    const token = session.token();
    if (!token) return;
    const refreshSessions = throttle(() => void invalidate.sessions(queryClient), MONITORING_REFRESH_MS);
    const onEvent = (event: RealtimeEvent) => {
      if (event.type === 'session.ended') {
        session.expire(endNotice(event.reason));
      } else if (event.type === 'report.status_changed') {
        void queryClient.invalidateQueries();
        // Whoever moved the report was told by their own action: one toast, not two.
        const state = session.get();
        const mine = state.status === 'signed_in' && event.actorId === state.user.id;
        if (!mine) {
          const status = t(`reportStatus.${event.status as ReportStatus}`);
          notifications.show({ color: 'blue', message: t('reports.live.statusChanged', { title: String(event.title), status }) });
        }
      } else if (isMessagingEvent(event)) {
        handleMessagingEvent(queryClient, event);
      } else if (event.type === 'webhook.disabled') {
        void queryClient.invalidateQueries({ predicate: (query) => String(query.queryKey[0]).includes('/webhooks') });
        notifications.show({ color: 'red', autoClose: false, message: t('webhooks.live.disabled', { url: String(event.url) }) });
      } else if (event.type.startsWith('monitoring.') || event.type === 'own_sessions.changed') {
        refreshSessions.call();
      }
    };
    const client = connectRealtime(token, { onEvent, onSessionEnded: () => session.expire(), onResync: () => void queryClient.invalidateQueries() });

    let active = true;
    const markActive = () => {
      active = true;
    };
    const activityEvents = ['pointerdown', 'keydown', 'scroll'] as const;
    activityEvents.forEach((name) => window.addEventListener(name, markActive, { passive: true }));
    const heartbeat = setInterval(() => {
      if (document.visibilityState !== 'visible' || !active) return;
      active = false;
      // A dead session answers 401, which the API client turns into the sign-in page.
      recordActivity().catch(() => {});
    }, HEARTBEAT_MS);

    return () => {
      client.close();
      refreshSessions.cancel();
      clearInterval(heartbeat);
      activityEvents.forEach((name) => window.removeEventListener(name, markActive));
    };
  }, [queryClient, t]);
}
