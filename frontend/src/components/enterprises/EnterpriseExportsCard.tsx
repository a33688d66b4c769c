import { Alert, Badge, Button, Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { IconDownload, IconFileZip } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getListEnterpriseExportsQueryKey, useCreateEnterpriseExport, useListEnterpriseExports } from '@/api/generated/enterprises/enterprises';
import { type EnterpriseExport, ExportStatus } from '@/api/generated/model';
import { QueryError } from '@/components/data/QueryError';
import { downloadFile } from '@/lib/download';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { notify } from '@/lib/notify';

const UNDER_WAY: readonly ExportStatus[] = [ExportStatus.queued, ExportStatus.running];
const STATUS_COLOR: Record<ExportStatus, string> = { queued: 'gray', running: 'blue', ready: 'teal', failed: 'red', expired: 'gray' };

/**
 * An enterprise's data as one archive (`POST /enterprises/{id}/exports`): asked for here, followed
 * while it is written (percent and stage), downloaded while it lasts. On the CEO's home and on the
 * platform admin's page of the enterprise.
 */
export function EnterpriseExportsCard({ enterpriseId, enterpriseName }: { enterpriseId: string; enterpriseName: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const client = useQueryClient();
  const exports = useListEnterpriseExports(enterpriseId, {
    query: {
      // Followed every second while one is being written.
      refetchInterval: (query) => (query.state.data?.some((e) => UNDER_WAY.includes(e.status)) ? 1000 : false),
    },
  });
  const create = useCreateEnterpriseExport({
    mutation: {
      onSuccess: () => client.invalidateQueries({ queryKey: getListEnterpriseExportsQueryKey(enterpriseId) }),
      onError: (error) => notify.failure(`enterprise.export:${enterpriseId}`, t('enterprises.exports.failed'), errorMessage(error, t)),
    },
  });
  const [downloading, setDownloading] = useState<string | null>(null);
  const underWay = exports.data?.some((e) => UNDER_WAY.includes(e.status)) ?? false;

  const download = async (item: EnterpriseExport) => {
    if (!item.downloadUrl) return;
    setDownloading(item.id);
    try {
      await downloadFile(item.downloadUrl, 'export.zip');
    } catch (error) {
      notify.failure(`enterprise.exportDownload:${item.id}`, t('enterprises.exports.downloadFailed'), errorMessage(error, t));
    } finally {
      setDownloading(null);
    }
  };

  const body = () => {
    if (exports.isPending) return <Text c="dimmed">{t('app.loading')}</Text>;
    if (exports.isError) return <QueryError error={exports.error} onRetry={() => void exports.refetch()} retrying={exports.isFetching} />;
    if (exports.data.length === 0) return <Text c="dimmed">{t('enterprises.exports.none')}</Text>;
    return (
      <Stack gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label={t('enterprises.exports.listLabel')}>
        {exports.data.map((item) => (
          <Card key={item.id} component="li" withBorder radius="sm" padding="sm" data-testid="enterprise-export">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Group gap="xs" wrap="wrap">
                  <Text fw={600}>{t('enterprises.exports.askedAt', { date: format.dateTime(item.createdAt) })}</Text>
                  <Badge color={STATUS_COLOR[item.status]} variant="light">
                    {t(`enterprises.exports.status.${item.status}`)}
                  </Badge>
                </Group>
                {item.status === ExportStatus.ready && item.expiresAt ? (
                  <Text size="sm" c="dimmed">
                    {t('enterprises.exports.readyUntil', { size: format.bytes(item.sizeBytes ?? 0), date: format.dateTime(item.expiresAt) })}
                  </Text>
                ) : null}
                {item.status === ExportStatus.failed && item.error ? (
                  <Text size="sm" c="red">
                    {t('enterprises.exports.failedBecause')}
                  </Text>
                ) : null}
              </Stack>
              {item.status === ExportStatus.ready ? (
                <Button
                  variant="light"
                  leftSection={<IconDownload size={16} aria-hidden />}
                  loading={downloading === item.id}
                  onClick={() => void download(item)}
                >
                  {t('enterprises.exports.download')}
                </Button>
              ) : null}
            </Group>
            {UNDER_WAY.includes(item.status) ? (
              <Stack gap={4} mt="xs">
                <Progress value={item.progress} animated aria-label={t('enterprises.exports.progressLabel')} />
                <Text size="sm" c="dimmed" role="status">
                  {t('enterprises.exports.progress', { percent: item.progress, stage: t(`enterprises.exports.stage.${item.stage}`) })}
                </Text>
              </Stack>
            ) : null}
          </Card>
        ))}
      </Stack>
    );
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={`enterprise-exports-${enterpriseId}`}>
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Title order={2} fz="lg" id={`enterprise-exports-${enterpriseId}`}>
            {t('enterprises.exports.title')}
          </Title>
          <Button
            leftSection={<IconFileZip size={18} aria-hidden />}
            loading={create.isPending}
            disabled={underWay}
            onClick={() => create.mutate({ id: enterpriseId })}
          >
            {t('enterprises.exports.create')}
          </Button>
        </Group>
        <Text size="sm">{t('enterprises.exports.description', { name: enterpriseName })}</Text>
        <Alert color="blue" variant="light" p="xs">
          <Text size="sm">{t('enterprises.exports.messengerNote')}</Text>
        </Alert>
        {body()}
      </Stack>
    </Card>
  );
}
