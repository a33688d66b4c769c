import { Stack } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '@/components/PageHeader';
import type { TokenOwner } from '../api';
import { TokenManager } from '../components/TokenManager';

const PERSONAL: TokenOwner = { kind: 'personal' };

/** The signed-in person's personal access tokens (every role; from the user menu). */
export default function ApiTokensScreen() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('apiTokens.personal.pageTitle')} · ${t('app.name')}`);
  return (
    <Stack gap="lg">
      <PageHeader title={t('apiTokens.personal.pageTitle')} description={t('apiTokens.personal.description')} />
      <TokenManager owner={PERSONAL} />
    </Stack>
  );
}
