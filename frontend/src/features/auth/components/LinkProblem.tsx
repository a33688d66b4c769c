import { Alert, Anchor, Stack } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
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
