import { Button, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconHome } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { href } from '@/lib/paths';

export default function NotFoundScreen() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('notFound.pageTitle')} · ${t('app.name')}`);

  return (
    <Stack align="center" ta="center" gap="md" py={64} px="md">
      <Text fz={64} fw={800} c="dimmed" lh={1} aria-hidden>
        {t('notFound.code')}
      </Text>
      <Title order={1}>{t('notFound.title')}</Title>
      <Text c="dimmed" maw={440}>
        {t('notFound.body')}
      </Text>
      <Button component={Link} to={href('home')} leftSection={<IconHome size={18} aria-hidden />}>
        {t('notFound.home')}
      </Button>
    </Stack>
  );
}
