import { Anchor, Button, Card, Group, Loader, SegmentedControl, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { IconBuilding, IconFileImport, IconPlus } from '@tabler/icons-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useListEnterprises } from '@/api/generated/enterprises/enterprises';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { SearchInput } from '@/components/data/SearchInput';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { EnterpriseStatusBadge } from '@/components/data/badges';
import { PageHeader } from '@/components/PageHeader';
import { useFormat } from '@/lib/format';
import { PAGE_SIZE, oneOf, useListParams } from '@/lib/list-params';
import { href } from '@/lib/paths';
import { EnterpriseImportModal } from '../components/EnterpriseImportModal';

const STATUSES = ['all', 'active', 'inactive'] as const;
type StatusFilter = (typeof STATUSES)[number];

export default function EnterpriseListScreen() {
  const { t } = useTranslation();
  const format = useFormat();
  const navigate = useNavigate();
  const list = useListParams(['q', 'status'] as const);
  const status: StatusFilter = oneOf(list.values.status, STATUSES) ?? 'all';
  const [importing, setImporting] = useState(false);
  useDocumentTitle(`${t('enterprises.list.pageTitle')} · ${t('app.name')}`);

  const enterprises = useListEnterprises(
    {
      q: list.values.q || undefined,
      active: status === 'all' ? undefined : status === 'active',
      page: list.page,
      pageSize: PAGE_SIZE,
    },
    { query: { placeholderData: keepPreviousData } },
  );

  const createButton = (
    <Button component={Link} to={href('adminEnterpriseCreate')} leftSection={<IconPlus size={18} aria-hidden />}>
      {t('enterprises.list.create')}
    </Button>
  );

  const body = () => {
    if (enterprises.isPending) return <TableSkeleton />;
    if (enterprises.isError) return <QueryError error={enterprises.error} onRetry={() => void enterprises.refetch()} retrying={enterprises.isFetching} />;
    const { items, total, pageSize } = enterprises.data;
    if (items.length === 0) {
      return list.filtered ? (
        <EmptyMessage
          icon={<IconBuilding size={32} aria-hidden />}
          title={t('enterprises.list.noMatch')}
          description={t('enterprises.list.noMatchHint')}
          action={
            <Button variant="default" onClick={list.reset}>
              {t('common.clearFilters')}
            </Button>
          }
        />
      ) : (
        <EmptyMessage
          icon={<IconBuilding size={32} aria-hidden />}
          title={t('enterprises.list.empty')}
          description={t('enterprises.list.emptyHint')}
          action={createButton}
        />
      );
    }
    return (
      <Stack gap="md">
        <Table.ScrollContainer minWidth={720}>
          <Table highlightOnHover verticalSpacing="sm" aria-busy={enterprises.isPlaceholderData}>
            <VisuallyHidden component="caption">{t('enterprises.list.caption')}</VisuallyHidden>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('enterprises.fields.name')}</Table.Th>
                <Table.Th scope="col">{t('enterprises.fields.ceo')}</Table.Th>
                <Table.Th scope="col">{t('enterprises.fields.status')}</Table.Th>
                <Table.Th scope="col">{t('enterprises.fields.createdAt')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((enterprise) => {
                const to = href('adminEnterprise', { id: enterprise.id });
                return (
                  <Table.Tr key={enterprise.id} style={{ cursor: 'pointer' }} onClick={() => navigate(to)}>
                    <Table.Td>
                      <Anchor component={Link} to={to} fw={600} onClick={(event) => event.stopPropagation()}>
                        {enterprise.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      {enterprise.ceo ? (
                        <>
                          <Text size="sm">{enterprise.ceo.fullName}</Text>
                          <Text size="xs" c="dimmed">
                            {enterprise.ceo.email}
                          </Text>
                        </>
                      ) : (
                        <Text size="sm" c="dimmed">
                          {t('enterprises.noCeo')}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <EnterpriseStatusBadge enterprise={enterprise} />
                    </Table.Td>
                    <Table.Td>{format.date(enterprise.createdAt)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <ListPagination page={list.page} pageSize={pageSize} total={total} onChange={list.setPage} label={t('enterprises.list.pages')} />
      </Stack>
    );
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title={t('enterprises.list.title')}
        description={t('enterprises.list.description')}
        actions={
          <Group gap="sm">
            <Button variant="default" leftSection={<IconFileImport size={18} aria-hidden />} onClick={() => setImporting(true)}>
              {t('enterprises.imports.action')}
            </Button>
            {createButton}
          </Group>
        }
      />
      <EnterpriseImportModal opened={importing} onClose={() => setImporting(false)} />
      <Card withBorder radius="md" padding="lg">
        <Stack gap="md">
          <Group align="flex-end" gap="md" wrap="wrap">
            <SearchInput
              value={list.values.q}
              onSearch={(q) => list.update({ q })}
              label={t('enterprises.list.search')}
              placeholder={t('enterprises.list.searchPlaceholder')}
            />
            <Stack gap={4}>
              <Text size="sm" fw={500} id="enterprise-status-filter">
                {t('enterprises.fields.status')}
              </Text>
              <SegmentedControl
                aria-labelledby="enterprise-status-filter"
                value={status}
                onChange={(value) => list.update({ status: value === 'all' ? null : value })}
                data={STATUSES.map((value) => ({ value, label: t(`enterprises.list.status.${value}`) }))}
              />
            </Stack>
            {enterprises.isFetching && !enterprises.isPending && <Loader size="sm" role="status" aria-label={t('app.loading')} />}
          </Group>
          {body()}
        </Stack>
      </Card>
    </Stack>
  );
}
