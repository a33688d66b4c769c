import { Badge, Button, Card, Group, Loader, Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import { IconCircleCheck, IconWorldSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { SsoDomain } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { CopyableCode } from '@/components/CopyableCode';
import { QueryError } from '@/components/data/QueryError';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { notify } from '@/lib/notify';
import { useCurrentUser } from '@/lib/session';
import { useSsoDomains, useVerifySsoDomainMutation } from './sso-api';

/**
 * The proofs of an enterprise's single sign-on domains: a domain sends its people to the provider
 * only once its TXT record is found (or the platform admin approves it). Each pending domain shows
 * the record to publish and a button to look for it.
 */
export function SsoDomainProofs({ enterpriseId }: { enterpriseId: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const isAdmin = useCurrentUser().role === 'PlatformAdmin';
  const domains = useSsoDomains(enterpriseId);
  const verify = useVerifySsoDomainMutation(enterpriseId);

  const check = (domain: SsoDomain, approve: boolean) =>
    verify.mutate(
      { domain: domain.domain, approve },
      {
        onSuccess: () => notify.success(`sso.verify:${domain.domain}`, t('ssoSettings.proofs.verified', { domain: domain.domain })),
        onError: (error) => {
          let message = errorMessage(error, t);
          if (isApiRequestError(error) && error.code === 'domain_not_verified') message = t('ssoSettings.proofs.notFound', { name: domain.txtName });
          if (isApiRequestError(error) && error.reason === 'sso_domain_taken') message = t('ssoSettings.errors.domainTaken');
          notify.failure(`sso.verify:${domain.domain}`, t('ssoSettings.proofs.failed', { domain: domain.domain }), message);
        },
      },
    );
  const askApprove = (domain: SsoDomain) =>
    openConfirmModal({
      title: t('ssoSettings.proofs.approveTitle'),
      children: (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="approve-domain-confirmation">
          {t('ssoSettings.proofs.approveBody', { domain: domain.domain })}
        </Text>
      ),
      labels: { confirm: t('ssoSettings.proofs.approve'), cancel: t('common.cancel') },
      confirmProps: { color: 'orange' },
      onConfirm: () => check(domain, true),
    });

  if (domains.isPending) return <Loader size="sm" role="status" aria-label={t('app.loading')} />;
  if (domains.isError) return <QueryError error={domains.error} onRetry={() => void domains.refetch()} retrying={domains.isFetching} />;
  if (domains.data.length === 0) return null;
  const checking = (domain: SsoDomain) => verify.isPending && verify.variables?.domain === domain.domain;

  return (
    <Stack gap="sm" component="section" aria-labelledby="sso-domain-proofs" data-testid="sso-domain-proofs">
      <Stack gap={4}>
        <Text fw={500} id="sso-domain-proofs">
          {t('ssoSettings.proofs.title')}
        </Text>
        <Text size="sm" c="dimmed">
          {t('ssoSettings.proofs.hint')}
        </Text>
      </Stack>
      {domains.data.map((domain) => (
        <Card key={domain.domain} withBorder radius="sm" padding="sm" data-testid="sso-domain">
          <Stack gap="xs">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                {domain.domain}
              </Text>
              <Badge color={domain.status === 'verified' ? 'teal' : 'orange'} variant="outline" data-testid="sso-domain-status">
                {domain.status === 'verified' ? t('ssoSettings.proofs.statusVerified') : t('ssoSettings.proofs.statusPending')}
              </Badge>
            </Group>
            {domain.status === 'verified' ? (
              <Group gap={6} wrap="nowrap">
                <IconCircleCheck size={16} aria-hidden />
                <Text size="sm" c="dimmed">
                  {domain.verifiedBy === 'admin'
                    ? t('ssoSettings.proofs.approvedOn', { date: format.date(domain.verifiedAt) })
                    : t('ssoSettings.proofs.foundOn', { date: format.date(domain.verifiedAt) })}
                </Text>
              </Group>
            ) : (
              <>
                <Text size="sm">{t('ssoSettings.proofs.publish')}</Text>
                <Text size="sm" fw={500}>
                  {t('ssoSettings.proofs.recordName')}
                </Text>
                <CopyableCode value={domain.txtName} copyLabel={t('ssoSettings.copy')} copiedLabel={t('ssoSettings.copied')} testId="sso-domain-txt-name" />
                <Text size="sm" fw={500}>
                  {t('ssoSettings.proofs.recordValue')}
                </Text>
                <CopyableCode value={domain.txtValue} copyLabel={t('ssoSettings.copy')} copiedLabel={t('ssoSettings.copied')} testId="sso-domain-txt-value" />
                <Group gap="sm" justify="flex-end" wrap="wrap">
                  {isAdmin && (
                    <Button variant="default" onClick={() => askApprove(domain)} disabled={checking(domain)}>
                      {t('ssoSettings.proofs.approve')}
                    </Button>
                  )}
                  <Button
                    leftSection={<IconWorldSearch size={16} aria-hidden />}
                    onClick={() => check(domain, false)}
                    loading={checking(domain)}
                    aria-label={t('ssoSettings.proofs.checkLabel', { domain: domain.domain })}
                  >
                    {t('ssoSettings.proofs.check')}
                  </Button>
                </Group>
              </>
            )}
          </Stack>
        </Card>
      ))}
    </Stack>
  );
}
