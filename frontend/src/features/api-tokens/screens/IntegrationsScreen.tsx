import { Stack, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router-dom';
import { useGetEnterprise } from '@/api/generated/enterprises/enterprises';
import { PageHeader } from '@/components/PageHeader';
import { href } from '@/lib/paths';
import { useCurrentUser } from '@/lib/session';
import type { TokenOwner } from '../api';
import { TokenManager } from '../components/TokenManager';

/**
 * An enterprise's service credentials: the CEO's own enterprise (/ceo/integrations, in their
 * sidebar), or any enterprise for the platform admin (/admin/enterprises/:id/integrations, from
 * the enterprise's page).
 */
export default function IntegrationsScreen() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const { id } = useParams<'id'>();
  const forAdmin = id !== undefined;
  const enterpriseId = id ?? user.enterpriseId ?? '';
  const owner = useMemo<TokenOwner>(() => ({ kind: 'service', enterpriseId }), [enterpriseId]);
  // The admin's page names the enterprise; the CEO knows theirs.
  const enterprise = useGetEnterprise(enterpriseId, { query: { enabled: forAdmin } });
  const title = forAdmin && enterprise.data ? t('apiTokens.service.titleFor', { name: enterprise.data.name }) : t('apiTokens.service.pageTitle');
  useDocumentTitle(`${title} · ${t('app.name')}`);

  const back = forAdmin ? { to: href('adminEnterprise', { id: enterpriseId }), label: t('apiTokens.service.backToEnterprise') } : undefined;

  return (
    <Stack gap="lg">
      <PageHeader title={title} description={t('apiTokens.service.description')} back={back} />
      {enterpriseId ? <TokenManager owner={owner} /> : <Text c="dimmed">{t('apiTokens.service.noEnterprise')}</Text>}
    </Stack>
  );
}
