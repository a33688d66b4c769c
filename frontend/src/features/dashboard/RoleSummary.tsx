import { Anchor, Card, Loader, SimpleGrid, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { User } from '@/api/generated/model';
import { useGetAdminDashboard, useGetCeoDashboard } from '@/api/generated/dashboards/dashboards';
import { useListDepartmentReports } from '@/api/generated/reports/reports';
import { useFormat } from '@/lib/format';
import { href } from '@/lib/paths';

type Figure = { key: string; label: string; value: number | undefined; to: string; failed?: boolean };

function Figures({ items }: { items: Figure[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <section aria-labelledby="summary-heading">
      <Title order={2} fz="lg" mb="md" id="summary-heading">
        {t('dashboard.summary')}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" component="dl" m={0}>
        {items.map(({ key, label, value, to, failed }) => (
          <Card key={key} withBorder radius="md" padding="md" data-testid={`summary-${key}`}>
            <Text component="dt" size="sm">
              <Anchor component={Link} to={to} inherit>
                {label}
              </Anchor>
            </Text>
            <Text component="dd" m={0} fz={28} fw={700} lh={1.2}>
              {failed ? '—' : value === undefined ? <Loader size="sm" role="status" aria-label={t('app.loading')} /> : format.number(value)}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </section>
  );
}

function AdminSummary() {
  const { t } = useTranslation();
  const { data, isError } = useGetAdminDashboard();
  const users = data && Object.values(data.usersByRole).reduce((sum, n) => sum + n, 0);
  return (
    <Figures
      items={[
        {
          key: 'enterprises',
          label: t('dashboard.figures.enterprises'),
          value: data && data.enterprises.active + data.enterprises.inactive,
          to: href('adminEnterprises'),
          failed: isError,
        },
        { key: 'users', label: t('dashboard.figures.users'), value: users, to: href('adminUsers'), failed: isError },
        { key: 'sessions', label: t('dashboard.figures.adminDashboard'), value: data?.activeSessions, to: href('admin'), failed: isError },
      ]}
    />
  );
}

function CeoSummary() {
  const { t } = useTranslation();
  const { data, isError } = useGetCeoDashboard();
  return (
    <Figures
      items={[
        { key: 'pending', label: t('dashboard.figures.pending'), value: data?.pendingReviews, to: `${href('ceoReports')}?status=submitted`, failed: isError },
      ]}
    />
  );
}

function StaffSummary({ departmentId }: { departmentId: string }) {
  const { t } = useTranslation();
  const drafts = useListDepartmentReports(departmentId, { status: 'draft', pageSize: 1 });
  const rejected = useListDepartmentReports(departmentId, { status: 'rejected', pageSize: 1 });
  const list = href('departmentReports', { id: departmentId });
  return (
    <Figures
      items={[
        { key: 'drafts', label: t('dashboard.figures.drafts'), value: drafts.data?.total, to: `${list}?status=draft`, failed: drafts.isError },
        { key: 'rejected', label: t('dashboard.figures.rejected'), value: rejected.data?.total, to: `${list}?status=rejected`, failed: rejected.isError },
      ]}
    />
  );
}

/** What matters to each role, in numbers that lead to the screens behind them. */
export function RoleSummary({ user }: { user: User }) {
  if (user.role === 'PlatformAdmin') return <AdminSummary />;
  if (user.role === 'EnterpriseCeo') return <CeoSummary />;
  return user.departmentId ? <StaffSummary departmentId={user.departmentId} /> : null;
}
