import { Alert, Button, Card, Group, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import {
  IconArrowBackUp,
  IconBuildingOff,
  IconClockExclamation,
  IconListSearch,
  IconPencil,
  IconPlayerPause,
  IconPlayerPlay,
  IconPlugConnected,
  IconTrash,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useGetEnterprise } from '@/api/generated/enterprises/enterprises';
import type { EnterpriseDetail } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import type { TFunction } from 'i18next';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { QueryError } from '@/components/data/QueryError';
import { EnterpriseStatusBadge } from '@/components/data/badges';
import { DepartmentManager } from '@/components/departments/DepartmentManager';
import { PageHeader } from '@/components/PageHeader';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { notify } from '@/lib/notify';
import { auditLogHref, href } from '@/lib/paths';
import { useDeleteEnterpriseMutation, usePurgeEnterpriseMutation, useRestoreEnterpriseMutation, useUpdateEnterpriseMutation } from '../api';
import { confirmDeactivateEnterprise, confirmDeleteEnterprise, confirmPurgeEnterprise } from '../components/enterprise-confirmations';
import { EnterpriseEditModal } from '../components/EnterpriseEditModal';
import { EnterpriseReportsSection } from '../components/EnterpriseReportsSection';
import { EnterpriseUsersTable } from '../components/EnterpriseUsersTable';
import { EnterpriseExportsCard } from '@/components/enterprises/EnterpriseExportsCard';
import { EnterpriseUsageCard } from '@/components/enterprises/EnterpriseUsageCard';
import { EnterpriseSecurityCard } from '@/components/security-policy/SecurityPolicyCards';
import { SsoSettingsCard } from '@/components/sso/SsoSettingsCard';

export default function EnterpriseDetailScreen() {
  const { t } = useTranslation();
  const { id = '' } = useParams<'id'>();
  const enterprise = useGetEnterprise(id);
  useDocumentTitle(`${enterprise.data?.name ?? t('enterprises.detail.pageTitle')} · ${t('app.name')}`);

  const back = { to: href('adminEnterprises'), label: t('enterprises.backToList') };

  if (enterprise.isPending) {
    return (
      <Stack gap="lg" role="status" aria-label={t('app.loading')} aria-busy>
        <Skeleton height={36} width="40%" />
        <Skeleton height={160} radius="md" />
        <Skeleton height={240} radius="md" />
      </Stack>
    );
  }
  if (enterprise.isError) {
    const missing = isApiRequestError(enterprise.error) && enterprise.error.status === 404;
    return (
      <Stack gap="lg">
        <PageHeader title={t('enterprises.detail.pageTitle')} back={back} />
        {missing ? (
          <EmptyMessage
            icon={<IconBuildingOff size={32} aria-hidden />}
            title={t('enterprises.detail.notFound')}
            description={t('enterprises.detail.notFoundHint')}
            action={
              <Button component={Link} to={back.to} variant="default">
                {back.label}
              </Button>
            }
          />
        ) : (
          <QueryError error={enterprise.error} onRetry={() => void enterprise.refetch()} retrying={enterprise.isFetching} />
        )}
      </Stack>
    );
  }
  return <EnterpriseDetailView enterprise={enterprise.data} back={back} />;
}

/** A refused restore or purge: the deletion was undone meanwhile, or the typed name was not its; else the usual words. */
function deletionError(error: unknown, t: TFunction): string {
  if (isApiRequestError(error) && error.reason === 'deletion_not_scheduled') return t('enterprises.scheduled.notScheduled');
  if (isApiRequestError(error) && error.code === 'confirmation_mismatch') return t('enterprises.purge.mismatch');
  return errorMessage(error, t);
}

function EnterpriseDetailView({ enterprise, back }: { enterprise: EnterpriseDetail; back: { to: string; label: string } }) {
  const { t } = useTranslation();
  const format = useFormat();
  const navigate = useNavigate();
  const [editing, edit] = useDisclosure(false);
  const update = useUpdateEnterpriseMutation();
  const remove = useDeleteEnterpriseMutation();
  const restore = useRestoreEnterpriseMutation();
  const purge = usePurgeEnterpriseMutation(() => {
    notify.success(`enterprise.purge:${enterprise.id}`, t('enterprises.purge.success', { name: enterprise.name }));
    navigate(href('adminEnterprises'), { replace: true });
  });

  const setActive = (isActive: boolean) =>
    update.mutate(
      { id: enterprise.id, data: { isActive } },
      {
        onSuccess: () =>
          notify.success(
            `enterprise.update:${enterprise.id}`,
            isActive ? t('enterprises.activate.success', { name: enterprise.name }) : t('enterprises.deactivate.success', { name: enterprise.name }),
          ),
        onError: (error) => notify.failure(`enterprise.update:${enterprise.id}`, t('enterprises.edit.failed'), errorMessage(error, t)),
      },
    );

  const toggleActive = () => (enterprise.isActive ? confirmDeactivateEnterprise(enterprise, t, () => setActive(false)) : setActive(true));

  const askDelete = () =>
    confirmDeleteEnterprise(enterprise, t, () =>
      remove.mutate(
        { id: enterprise.id },
        {
          // The enterprise stays, suspended, until its purge: its page says so and offers a restore.
          onSuccess: (scheduled) =>
            notify.success(
              `enterprise.delete:${enterprise.id}`,
              t('enterprises.delete.success', { name: enterprise.name, date: format.date(scheduled.purgeAfter) }),
            ),
          onError: (error) => notify.failure(`enterprise.delete:${enterprise.id}`, t('enterprises.delete.failed'), errorMessage(error, t)),
        },
      ),
    );

  const restoreNow = () =>
    restore.mutate(
      { id: enterprise.id },
      {
        onSuccess: () => notify.success(`enterprise.restore:${enterprise.id}`, t('enterprises.scheduled.restored', { name: enterprise.name })),
        onError: (error) => notify.failure(`enterprise.restore:${enterprise.id}`, t('enterprises.scheduled.restoreFailed'), deletionError(error, t)),
      },
    );

  const purgeAfter = format.date(enterprise.purgeAfter);
  const askPurge = () =>
    confirmPurgeEnterprise(enterprise, purgeAfter, t, () =>
      purge.mutate(
        { id: enterprise.id, data: { confirmName: enterprise.name } },
        {
          onError: (error) => notify.failure(`enterprise.purge:${enterprise.id}`, t('enterprises.purge.failed'), deletionError(error, t)),
        },
      ),
    );
  const scheduled = enterprise.purgeAfter != null;

  const details: { label: string; value: ReactNode }[] = [
    {
      label: t('enterprises.fields.ceo'),
      value: enterprise.ceo ? `${enterprise.ceo.fullName} · ${enterprise.ceo.email}` : t('enterprises.noCeo'),
    },
    { label: t('enterprises.fields.status'), value: <EnterpriseStatusBadge enterprise={enterprise} /> },
    { label: t('enterprises.fields.createdAt'), value: format.dateTime(enterprise.createdAt) },
    { label: t('enterprises.fields.updatedAt'), value: format.dateTime(enterprise.updatedAt) },
  ];
  const counts = [
    { label: t('enterprises.detail.userCount'), value: enterprise.userCount },
    { label: t('enterprises.detail.reportCount'), value: enterprise.reportCount },
    { label: t('enterprises.detail.departmentCount'), value: enterprise.departments.length },
  ];

  return (
    <Stack gap="xl">
      <PageHeader
        title={enterprise.name}
        badge={<EnterpriseStatusBadge enterprise={enterprise} />}
        back={back}
        actions={
          <>
            <Button
              component={Link}
              to={auditLogHref('PlatformAdmin', enterprise.id)!}
              variant="default"
              leftSection={<IconListSearch size={16} aria-hidden />}
            >
              {t('audit.link')}
            </Button>
            <Button variant="default" leftSection={<IconPencil size={16} aria-hidden />} onClick={edit.open}>
              {t('common.edit')}
            </Button>
            {!scheduled && (
              <>
                <Button
                  variant="light"
                  color={enterprise.isActive ? 'orange' : 'teal'}
                  leftSection={enterprise.isActive ? <IconPlayerPause size={16} aria-hidden /> : <IconPlayerPlay size={16} aria-hidden />}
                  onClick={toggleActive}
                  loading={update.isPending}
                >
                  {enterprise.isActive ? t('enterprises.deactivate.action') : t('enterprises.activate.action')}
                </Button>
                <Button variant="light" color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={askDelete} loading={remove.isPending}>
                  {t('common.delete')}
                </Button>
              </>
            )}
          </>
        }
      />

      {scheduled && (
        <Alert
          color="red"
          variant="light"
          icon={<IconClockExclamation size={20} aria-hidden />}
          title={t('enterprises.scheduled.title')}
          // A lasting state of the page, not news: a landmark named by its title, not an alert.
          role="region"
          data-testid="enterprise-deletion"
        >
          <Stack gap="sm">
            <Text size="sm">{t('enterprises.scheduled.body', { name: enterprise.name, date: purgeAfter })}</Text>
            <Group gap="sm">
              <Button variant="filled" color="teal" leftSection={<IconArrowBackUp size={16} aria-hidden />} onClick={restoreNow} loading={restore.isPending}>
                {t('enterprises.scheduled.restore')}
              </Button>
              <Button variant="light" color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={askPurge} loading={purge.isPending}>
                {t('enterprises.scheduled.purge')}
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}

      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="enterprise-overview">
        <Stack gap="md">
          <Title order={2} fz="lg" id="enterprise-overview">
            {t('enterprises.detail.overview')}
          </Title>
          <Text style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }} c={enterprise.description ? undefined : 'dimmed'}>
            {enterprise.description || t('enterprises.noDescription')}
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" component="dl" m={0}>
            {details.map(({ label, value }) => (
              <div key={label}>
                <Text component="dt" size="sm" c="dimmed">
                  {label}
                </Text>
                <Text component="dd" m={0} fw={500} style={{ overflowWrap: 'anywhere' }}>
                  {value}
                </Text>
              </div>
            ))}
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="md" component="dl" m={0}>
            {counts.map(({ label, value }) => (
              <Card key={label} withBorder radius="md" padding="md" bg="var(--mantine-color-gray-0)">
                <Text component="dt" size="sm" c="dimmed">
                  {label}
                </Text>
                <Text component="dd" m={0} fz={28} fw={700} lh={1.2}>
                  {format.number(value)}
                </Text>
              </Card>
            ))}
          </SimpleGrid>
        </Stack>
      </Card>

      <Stack gap="md" component="section" aria-labelledby="enterprise-departments">
        <Title order={2} fz="xl" id="enterprise-departments">
          {t('departments.title')}
        </Title>
        <DepartmentManager enterpriseId={enterprise.id} createUserLink={`${href('adminUserCreate')}?enterpriseId=${encodeURIComponent(enterprise.id)}`} />
      </Stack>

      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="enterprise-users">
        <Stack gap="md">
          <Group justify="space-between">
            <Title order={2} fz="lg" id="enterprise-users">
              {t('enterprises.detail.users')}
            </Title>
            <Button component={Link} to={`${href('adminUserCreate')}?enterpriseId=${encodeURIComponent(enterprise.id)}`} variant="light" size="sm">
              {t('users.list.create')}
            </Button>
          </Group>
          <EnterpriseUsersTable enterpriseId={enterprise.id} departments={enterprise.departments} />
        </Stack>
      </Card>

      <EnterpriseReportsSection enterpriseId={enterprise.id} departments={enterprise.departments} />

      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="enterprise-integrations">
        <Group justify="space-between" align="flex-start" gap="md">
          <Stack gap={4} style={{ flex: '1 1 320px', minWidth: 0 }}>
            <Title order={2} fz="lg" id="enterprise-integrations">
              {t('enterprises.detail.integrations')}
            </Title>
            <Text size="sm" c="dimmed">
              {t('enterprises.detail.integrationsHint')}
            </Text>
          </Stack>
          <Button
            component={Link}
            to={href('adminEnterpriseIntegrations', { id: enterprise.id })}
            variant="light"
            size="sm"
            leftSection={<IconPlugConnected size={16} aria-hidden />}
          >
            {t('enterprises.detail.manageIntegrations')}
          </Button>
        </Group>
      </Card>

      <EnterpriseSecurityCard enterpriseId={enterprise.id} />
      <SsoSettingsCard enterpriseId={enterprise.id} />
      <EnterpriseUsageCard enterpriseId={enterprise.id} canEditLimits />
      <EnterpriseExportsCard enterpriseId={enterprise.id} enterpriseName={enterprise.name} />
      <EnterpriseEditModal enterprise={enterprise} opened={editing} onClose={edit.close} />
    </Stack>
  );
}
