import { Anchor, Group, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

type PageHeaderProps = {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons on the right (they wrap below on narrow screens). */
  actions?: ReactNode;
  /** A link back to the parent screen. */
  back?: { to: string; label: string };
  /** Next to the title (e.g. a status badge). */
  badge?: ReactNode;
};

/** The top of a screen: an optional way back, the one h1, a short description and actions. */
export function PageHeader({ title, description, actions, back, badge }: PageHeaderProps) {
  return (
    <Stack gap="xs">
      {back && (
        <Anchor component={Link} to={back.to} size="sm" w="fit-content">
          <IconArrowLeft size={14} aria-hidden style={{ verticalAlign: 'middle', marginInlineEnd: 4 }} />
          {back.label}
        </Anchor>
      )}
      <Group justify="space-between" align="flex-start" gap="md">
        {/* As wide as the title and its badge want (the actions go below when both do not fit),
            never wider than the row: a short title is not squeezed onto two lines beside wide
            actions, its badge below it. The description fills the width without widening it. */}
        <Stack gap={4} style={{ flex: '1 1 auto', minWidth: 0, maxWidth: '100%' }}>
          {/* A title longer than the row wraps, and its badge goes under it, at its start. */}
          <Group gap="sm" align="center">
            <Title order={1} style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
              {title}
            </Title>
            {badge}
          </Group>
          {description && (
            <Text c="dimmed" style={{ width: 0, minWidth: '100%' }}>
              {description}
            </Text>
          )}
        </Stack>
        {actions && (
          <Group gap="sm" wrap="wrap">
            {actions}
          </Group>
        )}
      </Group>
    </Stack>
  );
}
