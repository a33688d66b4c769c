import { Anchor, Center, Stack, Text, ThemeIcon } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconArrowLeft, IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AuthLayout } from '@/components/layouts/AuthLayout';
import { href } from '@/lib/paths';

export default function ForgotPasswordScreen() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('auth.forgot.pageTitle')} · ${t('app.name')}`);

  return (
    <AuthLayout title={t('auth.forgot.title')} subtitle={t('app.tagline')}>
      <Stack>
        <Center>
          <ThemeIcon size={48} radius="xl" variant="light" aria-hidden>
            <IconLock size={26} />
          </ThemeIcon>
        </Center>
        <Text>{t('auth.forgot.body')}</Text>
        <Text>{t('auth.forgot.contact')}</Text>
        <Anchor component={Link} to={href('login')} fw={500}>
          <IconArrowLeft size={14} aria-hidden style={{ verticalAlign: 'middle', marginInlineEnd: 4 }} />
          {t('auth.forgot.back')}
        </Anchor>
      </Stack>
    </AuthLayout>
  );
}
