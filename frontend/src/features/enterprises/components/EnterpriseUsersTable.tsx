import { Group, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconUsers } from '@tabler/icons-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useListEnterpriseUsers } from '@/api/generated/enterprises/enterprises';
import type { Department } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { MfaBadge, RoleBadge, UserStatusBadge } from '@/components/data/badges';
import { InvitationBadge, ResendInvitationButton } from '@/components/users/invitations';
import { useFormat } from '@/lib/format';
import { PAGE_SIZE } from '@/lib/list-params';

type EnterpriseUsersTableProps = { enterpriseId: string; departments: readonly Department[] };

/** Everyone in an enterprise, a page at a time. */
export function EnterpriseUsersTable({ enterpriseId, departments }: EnterpriseUsersTableProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const [page, setPage] = useState(1);
  const users = useListEnterpriseUsers(enterpriseId, { role: [], page, pageSize: PAGE_SIZE }, { query: { placeholderData: keepPreviousData } });
  const departmentName = (id: string | null | undefined) => {
    const department = departments.find((d) => d.id === id);
    return department ? t(`departmentTypes.${department.type}`) : null;
  };

  if (users.isPending) return <TableSkeleton rows={3} />;
  if (users.isError) return <QueryError error={users.error} onRetry={() => void users.refetch()} retrying={users.isFetching} />;
  if (users.data.items.length === 0) return <EmptyMessage icon={<IconUsers size={32} aria-hidden />} title={t('enterprises.detail.noUsers')} />;

  return (
    <Stack gap="md">
      <Table.ScrollContainer minWidth={720}>
        <Table verticalSpacing="sm" aria-busy={users.isPlaceholderData}>
          <VisuallyHidden component="caption">{t('enterprises.detail.usersCaption')}</VisuallyHidden>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('users.fields.fullName')}</Table.Th>
              <Table.Th scope="col">{t('users.fields.role')}</Table.Th>
              <Table.Th scope="col">{t('users.fields.department')}</Table.Th>
              <Table.Th scope="col">{t('users.fields.status')}</Table.Th>
              <Table.Th scope="col">{t('users.fields.lastLogin')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {users.data.items.map((user) => (
              <Table.Tr key={user.id}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {user.fullName}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {user.email}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <RoleBadge role={user.role} />
                </Table.Td>
                <Table.Td>
                  {departmentName(user.departmentId) ?? (
                    <Text span size="sm" c="dimmed">
                      {t('users.noDepartment')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {user.invitation ? (
                    // Invited, not signed up yet (this table is the platform admin's, who may send a new invitation).
                    <Stack gap={6} align="flex-start">
                      {user.status !== 'active' && <UserStatusBadge status={user.status} />}
                      <InvitationBadge status={user.invitation.status} />
                      <ResendInvitationButton user={user} />
                    </Stack>
                  ) : (
                    <Group gap={6}>
                      <UserStatusBadge status={user.status} />
                      {user.mfaEnabled && <MfaBadge />}
                    </Group>
                  )}
                </Table.Td>
                <Table.Td>{format.dateTime(user.lastLogin, t('users.neverSignedIn'))}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListPagination page={page} pageSize={users.data.pageSize} total={users.data.total} onChange={setPage} label={t('enterprises.detail.usersPages')} />
    </Stack>
  );
}
