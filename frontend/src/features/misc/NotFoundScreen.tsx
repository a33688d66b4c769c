import { Button, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconHome, IconLogin } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { href } from '@/lib/paths';
import { useSession } from '@/lib/session';

/**
 * Unknown paths. Signed in, inside the app's frame (its sidebar leads on); signed out, in the
 * frame of the signed-out pages (the product's name, the language switch) with the way to the
 * sign-in page.
 */
export default function NotFoundScreen() {
  const { t } = useTranslation();
  const signedIn = useSession().status === 'signed_in';
  useDocumentTitle(`${t('notFound.pageTitle')} · ${t('app.name')}`);

  if (!signedIn) {
    return (
      <AuthLayout title={t('notFound.title')} subtitle={t('notFound.body')}>
        <Stack align="center" ta="center" gap="md">
          <Text fz={48} fw={800} c="dimmed" lh={1} aria-hidden>
            {t('notFound.code')}
          </Text>
          <Button component={Link} to={href('login')} leftSection={<IconLogin size={18} aria-hidden />} fullWidth>
            {t('notFound.signIn')}
          </Button>
        </Stack>
      </AuthLayout>
    );
  }
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
