import { Button, Card, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconUserPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useGetEnterprise } from '@/api/generated/enterprises/enterprises';
import { useListUsers } from '@/api/generated/users/users';
import { QueryError } from '@/components/data/QueryError';
import { DepartmentManager } from '@/components/departments/DepartmentManager';
import { PageHeader } from '@/components/PageHeader';
import { useFormat } from '@/lib/format';
import { href } from '@/lib/paths';
import { useCurrentUser } from '@/lib/session';
import { EnterpriseExportsCard } from '@/components/enterprises/EnterpriseExportsCard';
import { EnterpriseUsageCard } from '@/components/enterprises/EnterpriseUsageCard';
import { EnterpriseSecurityCard } from '@/components/security-policy/SecurityPolicyCards';
import { SsoSettingsCard } from '@/components/sso/SsoSettingsCard';
import { CeoDashboardSection } from './CeoDashboardSection';

/**
 * The CEO's home: their enterprise, a short summary and its departments. Each part is its own
 * section, so the reports and charts of a later issue slot in as further sections.
 */
export default function CeoHomeScreen() {
  const { t } = useTranslation();
  const format = useFormat();
  const user = useCurrentUser();
  const enterpriseId = user.enterpriseId ?? '';
  const enterprise = useGetEnterprise(enterpriseId);
  // A CEO's user list holds exactly their department staff; one row is enough for the total.
  const staff = useListUsers({ page: 1, pageSize: 1 }, { query: { enabled: Boolean(enterpriseId) } });
  useDocumentTitle(`${enterprise.data?.name ?? t('ceo.pageTitle')} · ${t('app.name')}`);

  if (!enterpriseId) {
    return (
      <Stack gap="lg">
        <PageHeader title={t('ceo.pageTitle')} />
        <Text c="dimmed">{t('ceo.noEnterprise')}</Text>
      </Stack>
    );
  }
  if (enterprise.isError) {
    return (
      <Stack gap="lg">
        <PageHeader title={t('ceo.pageTitle')} />
        <QueryError error={enterprise.error} onRetry={() => void enterprise.refetch()} retrying={enterprise.isFetching} />
      </Stack>
    );
  }

  const summary = [
    { key: 'departments', label: t('ceo.summary.departments'), value: enterprise.data ? format.number(enterprise.data.departments.length) : null },
    { key: 'staff', label: t('ceo.summary.staff'), value: staff.data ? format.number(staff.data.total) : staff.isError ? '—' : null },
  ];

  return (
    <Stack gap="xl">
      <PageHeader
        title={enterprise.data?.name ?? t('ceo.pageTitle')}
        description={enterprise.data?.description || t('ceo.description')}
        actions={
          <Button component={Link} to={href('adminUserCreate')} leftSection={<IconUserPlus size={18} aria-hidden />}>
            {t('users.list.create')}
          </Button>
        }
      />

      <section aria-labelledby="ceo-summary">
        <Title order={2} fz="lg" mb="md" id="ceo-summary">
          {t('ceo.summary.title')}
        </Title>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md" component="dl" m={0}>
          {summary.map(({ key, label, value }) => (
            <Card key={key} withBorder radius="md" padding="md" data-testid={`ceo-summary-${key}`}>
              <Text component="dt" size="sm" c="dimmed">
                {label}
              </Text>
              <Text component="dd" m={0} fz={28} fw={700} lh={1.2}>
                {value ?? <Loader size="sm" role="status" aria-label={t('app.loading')} />}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      </section>

      <CeoDashboardSection />

      <Stack gap="md" component="section" aria-labelledby="ceo-departments">
        <Title order={2} fz="xl" id="ceo-departments">
          {t('departments.title')}
        </Title>
        <DepartmentManager enterpriseId={enterpriseId} spreadsheetsLink={(department) => href('departmentSpreadsheet', { id: department.id })} />
      </Stack>

      <EnterpriseSecurityCard enterpriseId={enterpriseId} />
      <SsoSettingsCard enterpriseId={enterpriseId} />
      <EnterpriseUsageCard enterpriseId={enterpriseId} />
      {enterprise.data ? <EnterpriseExportsCard enterpriseId={enterpriseId} enterpriseName={enterprise.data.name} /> : null}
    </Stack>
  );
}
