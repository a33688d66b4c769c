import { Badge, Button, Stack, Text } from '@mantine/core';
import { IconMailForward } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { InvitationStatus, User } from '@/api/generated/model';
import { useResendInvitation } from '@/api/generated/users/users';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';
import { invalidate } from '@/lib/query-invalidation';

const COLORS: Record<InvitationStatus, string> = { pending: 'blue', expired: 'orange', bounced: 'red' };

/**
 * Someone invited who has not chosen a password yet (they cannot sign in until they do): Invited,
 * Invitation expired, or Invitation bounced, the last with why in words (not in a tooltip only).
 */
export function InvitationBadge({ status }: { status: InvitationStatus }) {
  const { t } = useTranslation();
  const badge = (
    <Badge color={COLORS[status]} variant="light" style={{ textTransform: 'none', minWidth: 'max-content' }} data-testid="invitation-status">
      {t(`users.invitation.${status}`)}
    </Badge>
  );
  if (status !== 'bounced') return badge;
  return (
    <Stack gap={2} align="flex-start">
      {badge}
      <Text size="xs" c="red.9">
        {t('users.invitation.bouncedHint')}
      </Text>
    </Stack>
  );
}

/** Sends an invited person a new invitation (the earlier link stops working), saying how it went. */
export function ResendInvitationButton({ user }: { user: Pick<User, 'id' | 'email' | 'fullName'> }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const resend = useResendInvitation({ mutation: { onSuccess: () => invalidate.users(client) } });
  const action = `user.invite:${user.id}`;
  return (
    <Button
      size="compact-xs"
      variant="light"
      leftSection={<IconMailForward size={14} aria-hidden />}
      loading={resend.isPending}
      disabled={resend.isPending}
      // Whose invitation, for whoever hears the button out of its row.
      aria-label={`${t('users.invitation.resend')} (${user.fullName})`}
      onClick={() =>
        resend.mutate(
          { id: user.id },
          {
            onSuccess: () => notify.success(action, t('users.invitation.resent', { email: user.email })),
            onError: (error) => notify.failure(action, t('users.invitation.failed'), errorMessage(error, t)),
          },
        )
      }
    >
      {t('users.invitation.resend')}
    </Button>
  );
}
