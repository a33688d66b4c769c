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
import { ProvisioningCard } from '../components/ProvisioningCard';
import { TokenManager } from '../components/TokenManager';
import { WebhookManager } from '../components/WebhookManager';
import type { WebhookScope } from '../webhook-api';

const PLATFORM: WebhookScope = { kind: 'platform' };

/**
 * An enterprise's integrations, its service credentials and its webhooks: the CEO's own
 * enterprise (/ceo/integrations, in their sidebar), or any enterprise for the platform admin
 * (/admin/enterprises/:id/integrations, from the enterprise's page). The platform admin's own
 * (/admin/integrations, in their sidebar) are the platform's webhooks, which hear every
 * enterprise.
 */
export default function IntegrationsScreen() {
  const user = useCurrentUser();
  const { id } = useParams<'id'>();
  if (id === undefined && user.role === 'PlatformAdmin') return <PlatformIntegrations />;
  return <EnterpriseIntegrations enterpriseId={id ?? user.enterpriseId ?? ''} forAdmin={id !== undefined} />;
}

function EnterpriseIntegrations({ enterpriseId, forAdmin }: { enterpriseId: string; forAdmin: boolean }) {
  const { t } = useTranslation();
  const owner = useMemo<TokenOwner>(() => ({ kind: 'service', enterpriseId }), [enterpriseId]);
  // The admin names the enterprise whose webhooks they manage; a CEO's are their own.
  const scope = useMemo<WebhookScope>(() => (forAdmin ? { kind: 'enterprise', enterpriseId } : { kind: 'enterprise' }), [forAdmin, enterpriseId]);
  // The admin's page names the enterprise; the CEO knows theirs.
  const enterprise = useGetEnterprise(enterpriseId, { query: { enabled: forAdmin } });
  const title = forAdmin && enterprise.data ? t('apiTokens.service.titleFor', { name: enterprise.data.name }) : t('apiTokens.service.pageTitle');
  useDocumentTitle(`${title} · ${t('app.name')}`);

  const back = forAdmin ? { to: href('adminEnterprise', { id: enterpriseId }), label: t('apiTokens.service.backToEnterprise') } : undefined;

  return (
    <Stack gap="lg">
      <PageHeader title={title} description={t('apiTokens.service.description')} back={back} />
      {enterpriseId ? (
        <>
          <Text size="sm" c="dimmed">
            {t('apiTokens.service.scimHint', { url: `${window.location.origin}/api/v1/scim/v2` })}
          </Text>
          <TokenManager owner={owner} />
          <ProvisioningCard enterpriseId={enterpriseId} />
          <WebhookManager scope={scope} />
        </>
      ) : (
        <Text c="dimmed">{t('apiTokens.service.noEnterprise')}</Text>
      )}
    </Stack>
  );
}

function PlatformIntegrations() {
  const { t } = useTranslation();
  useDocumentTitle(`${t('webhooks.platformPage.title')} · ${t('app.name')}`);
  return (
    <Stack gap="lg">
      <PageHeader title={t('webhooks.platformPage.title')} description={t('webhooks.platformPage.description')} />
      <WebhookManager scope={PLATFORM} />
    </Stack>
  );
}
