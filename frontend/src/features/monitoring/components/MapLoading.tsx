import { Box, Center, Group, Loader, Paper, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The map's height, shared by its stand-in while it loads (session-map.css). */
const MAP_HEIGHT = 420;

/**
 * What stands where the map is while it (its code, its configuration, its outlines or tiles)
 * loads: a spinner that says so, never a blank box. `overlay` lays it over a map already there.
 */
export function MapLoading({ overlay = false }: { overlay?: boolean }) {
  const { t } = useTranslation();
  const notice = (
    <Paper shadow="xs" radius="xl" px="md" py={6} role="status" data-testid="map-loading">
      <Group gap="xs" wrap="nowrap">
        <Loader size="xs" aria-hidden />
        <Text size="sm">{t('monitoring.map.loading')}</Text>
      </Group>
    </Paper>
  );
  if (overlay) {
    return (
      <Center pos="absolute" inset={0} style={{ zIndex: 1000, pointerEvents: 'none' }}>
        {notice}
      </Center>
    );
  }
  return (
    <Box h={MAP_HEIGHT} bg="#d0e4f5" style={{ borderRadius: 'var(--mantine-radius-md)' }}>
      <Center h="100%">{notice}</Center>
    </Box>
  );
}
