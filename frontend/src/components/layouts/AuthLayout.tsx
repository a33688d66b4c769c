import { Box, Container, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { LanguageSwitch } from '../LanguageSwitch';
import { Logo } from '../Logo';

type AuthLayoutProps = { title: string; subtitle?: string; children: ReactNode };

/** The frame of the signed-out pages: product name, language switch, one card. */
export function AuthLayout({ title, subtitle, children }: AuthLayoutProps) {
  return (
    <Box mih="100dvh" bg="var(--mantine-color-gray-0)">
      <Group justify="space-between" p="md" component="header">
        <Logo />
        <LanguageSwitch />
      </Group>
      <Container size={440} py={{ base: 'md', sm: 48 }} component="main" id="main-content">
        <Stack gap={4} mb="lg" ta="center">
          <Title order={1} fz={{ base: 24, sm: 28 }}>
            {title}
          </Title>
          {subtitle && <Text c="dimmed">{subtitle}</Text>}
        </Stack>
        <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="md">
          {children}
        </Paper>
      </Container>
    </Box>
  );
}
