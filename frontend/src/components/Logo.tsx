import { Group, Text, ThemeIcon } from '@mantine/core';
import { IconBuildingSkyscraper } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

export function Logo({ size = 'md' }: { size?: 'md' | 'lg' }) {
  const { t } = useTranslation();
  return (
    <Group gap="xs" wrap="nowrap">
      <ThemeIcon size={size === 'lg' ? 40 : 32} radius="md" aria-hidden>
        <IconBuildingSkyscraper size={size === 'lg' ? 24 : 20} />
      </ThemeIcon>
      <Text fw={700} fz={size === 'lg' ? 'xl' : 'lg'} component="span">
        {t('app.name')}
      </Text>
    </Group>
  );
}
