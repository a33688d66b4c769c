import { Badge, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useGetUnreadTotal } from '@/api/generated/messaging/messaging';

/**
 * The unread total next to "Messages" in the sidebar. The messenger's live events invalidate it
 * (lib/messaging-live.ts), so it moves as messages arrive and are read, on any screen.
 */
export function UnreadBadge() {
  const { t } = useTranslation();
  const { data } = useGetUnreadTotal({ query: { staleTime: 60_000 } });
  const unread = data?.unread ?? 0;
  if (unread <= 0) return null;
  return (
    <>
      <Badge size="sm" color="red" variant="filled" aria-hidden data-testid="unread-total">
        {unread > 99 ? '99+' : unread}
      </Badge>
      <VisuallyHidden>{t('nav.unread', { count: unread })}</VisuallyHidden>
    </>
  );
}
