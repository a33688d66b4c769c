import { EmptyState } from '@mantine/core';
import type { ReactNode } from 'react';

type EmptyMessageProps = { icon?: ReactNode; title: ReactNode; description?: ReactNode; action?: ReactNode };

/** Nothing to show (yet): says so, and what to do about it. */
export function EmptyMessage({ icon, title, description, action }: EmptyMessageProps) {
  return (
    <EmptyState icon={icon} title={title} description={description} py="xl" role="status">
      {action && <EmptyState.Actions>{action}</EmptyState.Actions>}
    </EmptyState>
  );
}
