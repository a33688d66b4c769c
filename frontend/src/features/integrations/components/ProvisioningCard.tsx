import { Button, Card, Group, Radio, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getGetEnterpriseProvisioningQueryKey, useGetEnterpriseProvisioning, useUpdateEnterpriseProvisioning } from '@/api/generated/enterprises/enterprises';
import type { ScimDeletion } from '@/api/generated/model';
import { QueryError } from '@/components/data/QueryError';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';

const CHOICES: readonly ScimDeletion[] = ['delete', 'erase'];

/**
 * What the enterprise's directory deleting someone through SCIM does
 * (`PUT /enterprises/{id}/provisioning`): their account deleted, or the person erased, their work
 * kept under a pseudonym. Beside the service credentials a directory signs in with.
 */
export function ProvisioningCard({ enterpriseId }: { enterpriseId: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const settings = useGetEnterpriseProvisioning(enterpriseId);
  const [chosen, setChosen] = useState<ScimDeletion | null>(null);
  const [failure, setFailure] = useState<Notice | null>(null);
  const save = useUpdateEnterpriseProvisioning({
    mutation: {
      onSuccess: (saved) => {
        client.setQueryData(getGetEnterpriseProvisioningQueryKey(enterpriseId), saved);
        setChosen(null);
        notify.success(`provisioning:${enterpriseId}`, t('provisioning.saved'));
      },
      onError: (error) => setFailure({ title: t('provisioning.failed'), message: errorMessage(error, t) }),
    },
  });
  const current = chosen ?? settings.data?.scimDeletion;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!current) return;
    setFailure(null);
    save.mutate({ id: enterpriseId, data: { scimDeletion: current } });
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={`provisioning-${enterpriseId}`}>
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} fz="lg" id={`provisioning-${enterpriseId}`}>
            {t('provisioning.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('provisioning.description')}
          </Text>
        </Stack>
        {settings.isError ? (
          <QueryError error={settings.error} onRetry={() => void settings.refetch()} retrying={settings.isFetching} />
        ) : settings.isPending ? (
          <Text c="dimmed">{t('app.loading')}</Text>
        ) : (
          <form onSubmit={submit} noValidate>
            <Stack gap="md">
              <InlineNotice notice={failure} onClose={() => setFailure(null)} />
              <Radio.Group label={t('provisioning.scimDeletion')} value={current} onChange={(value) => setChosen(value as ScimDeletion)}>
                <Stack gap="sm" mt="xs">
                  {CHOICES.map((choice) => (
                    <Radio key={choice} value={choice} label={t(`provisioning.choices.${choice}`)} description={t(`provisioning.hints.${choice}`)} />
                  ))}
                </Stack>
              </Radio.Group>
              <Group justify="flex-end">
                <Button type="submit" loading={save.isPending} disabled={chosen === null || chosen === settings.data.scimDeletion}>
                  {t('common.save')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Stack>
    </Card>
  );
}
