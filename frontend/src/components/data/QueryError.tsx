import { Alert, Button, Group, Text } from '@mantine/core';
import { IconAlertCircle, IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@/lib/errors';

type QueryErrorProps = {
  error: unknown;
  /** Offers "Try again" when given. */
  onRetry?: () => void;
  retrying?: boolean;
  title?: string;
};

/** A read that failed: what went wrong, in the user's language, and a way to try again. */
export function QueryError({ error, onRetry, retrying = false, title }: QueryErrorProps) {
  const { t } = useTranslation();
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle aria-hidden />} title={title ?? t('common.loadFailed')} role="alert">
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm">{errorMessage(error, t)}</Text>
        {onRetry && (
          <Button size="xs" variant="white" color="red" leftSection={<IconRefresh size={14} aria-hidden />} onClick={onRetry} loading={retrying}>
            {t('common.retry')}
          </Button>
        )}
      </Group>
    </Alert>
  );
}
