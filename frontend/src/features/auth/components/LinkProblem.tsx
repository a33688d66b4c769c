import { Alert, Anchor, Loader, Stack, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

/** An e-mailed link that does not work (used, expired, mistyped): why, and where to go instead. */
export function LinkProblem({ title, message, action }: { title: string; message: string; action: { to: string; label: string } }) {
  return (
    <Stack>
      <Alert color="red" icon={<IconAlertCircle aria-hidden />} title={title} role="alert">
        {message}
      </Alert>
      <Anchor component={Link} to={action.to} fw={500}>
        {action.label}
      </Anchor>
    </Stack>
  );
}

/** An e-mailed link being checked as its page opens. */
export function LinkChecking() {
  const { t } = useTranslation();
  return (
    <Stack align="center" gap="sm" role="status">
      <Loader aria-hidden />
      <Text>{t('emailLinks.checking')}</Text>
    </Stack>
  );
}
