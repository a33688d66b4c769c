import { ActionIcon, Button, Card, Group, Loader, Menu, Select, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import {
  IconDots,
  IconEraser,
  IconListSearch,
  IconPencil,
  IconPlus,
  IconShieldOff,
  IconTrash,
  IconUserCheck,
  IconUserOff,
  IconUsers,
} from '@tabler/icons-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { type Role, type User, UserStatus } from '@/api/generated/model';
import { useListUsers } from '@/api/generated/users/users';
import { EmailAddress } from '@/components/data/EmailAddress';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { SearchInput } from '@/components/data/SearchInput';
import { StackedTable } from '@/components/data/StackedTable';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { EnterpriseName } from '@/components/enterprises/EnterpriseName';
import { useEnterpriseOptions } from '@/components/enterprises/use-enterprise-options';
import { ErasedBadge, MfaBadge, RoleBadge, UserStatusBadge } from '@/components/data/badges';
import { PageHeader } from '@/components/PageHeader';
import { InvitationBadge, ResendInvitationButton } from '@/components/users/invitations';
import { ALL_ROLES, STAFF_ROLES, userActionsFor } from '@/lib/authorization';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { PAGE_SIZE, oneOf, useListParams } from '@/lib/list-params';
import { notify } from '@/lib/notify';
import { auditLogHref, href } from '@/lib/paths';
import { useCurrentUser } from '@/lib/session';
import { useDeleteUserMutation, useDepartments, useEraseUserMutation, useResetUserMfaMutation, useUpdateUserMutation } from '../api';
import { confirmDeactivateUser, confirmDeleteUser, confirmEraseUser, confirmResetMfa, showErasure } from '../components/user-confirmations';
import { UserEditModal } from '../components/UserEditModal';

const STATUSES = Object.values(UserStatus);

export default function UserListScreen() {
  const { t } = useTranslation();
  const format = useFormat();
  const caller = useCurrentUser();
  const isAdmin = caller.role === 'PlatformAdmin';
  const list = useListParams(['q', 'role', 'status', 'enterpriseId'] as const);
  const roleChoices: readonly Role[] = isAdmin ? ALL_ROLES : STAFF_ROLES;
  const role = oneOf(list.values.role, roleChoices);
  const status = oneOf(list.values.status, STATUSES);
  const enterpriseId = isAdmin ? list.values.enterpriseId || undefined : undefined;
  const [editing, setEditing] = useState<User | null>(null);
  useDocumentTitle(`${t('users.list.pageTitle')} · ${t('app.name')}`);

  const users = useListUsers(
    { q: list.values.q || undefined, role, status, enterpriseId, page: list.page, pageSize: PAGE_SIZE },
    { query: { placeholderData: keepPreviousData } },
  );
  const enterprises = useEnterpriseOptions(isAdmin);
  // A CEO sees their own enterprise's staff: name their departments.
  const { departments } = useDepartments(isAdmin ? null : caller.enterpriseId);
  const departmentName = (id: string | null | undefined) => {
    const department = departments.find((d) => d.id === id);
    return department ? t(`departmentTypes.${department.type}`) : null;
  };

  const update = useUpdateUserMutation();
  const remove = useDeleteUserMutation();
  const erase = useEraseUserMutation();
  const resetMfa = useResetUserMfaMutation();

  const setStatus = (user: User, next: UserStatus) =>
    update.mutate(
      { id: user.id, data: { status: next } },
      {
        onSuccess: () =>
          notify.success(
            `user.update:${user.id}`,
            next === 'active' ? t('users.activate.success', { name: user.fullName }) : t('users.deactivate.success', { name: user.fullName }),
          ),
        onError: (error) => notify.failure(`user.update:${user.id}`, t('users.edit.failed'), errorMessage(error, t)),
      },
    );

  const toggleStatus = (user: User) =>
    user.status === 'active' ? confirmDeactivateUser(user, t, () => setStatus(user, 'inactive')) : setStatus(user, 'active');

  const askDelete = (user: User) =>
    confirmDeleteUser(user, t, () =>
      remove.mutate(
        { id: user.id },
        {
          onSuccess: () => notify.success(`user.delete:${user.id}`, t('users.delete.success', { name: user.fullName })),
          onError: (error) => notify.failure(`user.delete:${user.id}`, t('users.delete.failed'), errorMessage(error, t)),
        },
      ),
    );

  const askErase = (user: User) =>
    confirmEraseUser(user, t, () =>
      erase.mutate(
        { id: user.id },
        {
          onSuccess: (erasure) => showErasure(user.fullName, erasure, t),
          onError: (error) => notify.failure(`user.erase:${user.id}`, t('users.erase.failed'), errorMessage(error, t)),
        },
      ),
    );

  const askResetMfa = (user: User) =>
    confirmResetMfa(user, t, () =>
      resetMfa.mutate(
        { id: user.id },
        {
          onSuccess: () => notify.success(`user.mfa:${user.id}`, t('users.mfa.resetSuccess', { name: user.fullName })),
          onError: (error) => notify.failure(`user.mfa:${user.id}`, t('users.mfa.resetFailed'), errorMessage(error, t)),
        },
      ),
    );

  const createButton = (
    <Button component={Link} to={href('adminUserCreate')} leftSection={<IconPlus size={18} aria-hidden />}>
      {t('users.list.create')}
    </Button>
  );

  const body = () => {
    if (users.isPending) return <TableSkeleton />;
    if (users.isError) return <QueryError error={users.error} onRetry={() => void users.refetch()} retrying={users.isFetching} />;
    const { items, total, pageSize } = users.data;
    if (items.length === 0) {
      return list.filtered ? (
        <EmptyMessage
          icon={<IconUsers size={32} aria-hidden />}
          title={t('users.list.noMatch')}
          description={t('users.list.noMatchHint')}
          action={
            <Button variant="default" onClick={list.reset}>
              {t('common.clearFilters')}
            </Button>
          }
        />
      ) : (
        <EmptyMessage icon={<IconUsers size={32} aria-hidden />} title={t('users.list.empty')} description={t('users.list.emptyHint')} action={createButton} />
      );
    }
    return (
      <Stack gap="md">
        <StackedTable highlightOnHover verticalSpacing="sm" aria-busy={users.isPlaceholderData}>
          <VisuallyHidden component="caption">{t('users.list.caption')}</VisuallyHidden>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('users.fields.fullName')}</Table.Th>
              <Table.Th scope="col">{t('users.fields.role')}</Table.Th>
              <Table.Th scope="col">{isAdmin ? t('users.fields.enterprise') : t('users.fields.department')}</Table.Th>
              <Table.Th scope="col">{t('users.fields.status')}</Table.Th>
              <Table.Th scope="col">{t('users.fields.lastLogin')}</Table.Th>
              <Table.Th scope="col">
                <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((user) => {
              const allowed = userActionsFor(caller, user);
              const auditLink = auditLogHref(caller.role, user.id);
              return (
                <Table.Tr key={user.id} data-testid="user-row">
                  <Table.Td data-title>
                    <Text size="sm" fw={500}>
                      {user.fullName}
                      {user.id === caller.id && (
                        <Text span size="xs" c="dimmed" ms={6}>
                          {t('users.list.you')}
                        </Text>
                      )}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {user.email ? <EmailAddress email={user.email} /> : t('users.erased.noEmail')}
                    </Text>
                  </Table.Td>
                  <Table.Td data-label={t('users.fields.role')}>
                    <RoleBadge role={user.role} />
                  </Table.Td>
                  <Table.Td data-label={isAdmin ? t('users.fields.enterprise') : t('users.fields.department')}>
                    {isAdmin ? (
                      <EnterpriseName id={user.enterpriseId} names={enterprises.names} />
                    ) : (
                      (departmentName(user.departmentId) ?? (
                        <Text span size="sm" c="dimmed">
                          {t('users.noDepartment')}
                        </Text>
                      ))
                    )}
                  </Table.Td>
                  <Table.Td data-label={t('users.fields.status')}>
                    {user.invitation ? (
                      // Invited, not signed up yet: where the invitation stands, and a new one to send.
                      <Stack gap={6} align="flex-start">
                        {user.status !== 'active' && <UserStatusBadge status={user.status} />}
                        <InvitationBadge status={user.invitation.status} />
                        {allowed.edit && <ResendInvitationButton user={user} />}
                      </Stack>
                    ) : (
                      <Group gap={6}>
                        {user.erased ? <ErasedBadge /> : <UserStatusBadge status={user.status} />}
                        {user.mfaEnabled && <MfaBadge />}
                      </Group>
                    )}
                  </Table.Td>
                  <Table.Td data-label={t('users.fields.lastLogin')}>{format.dateTime(user.lastLogin, t('users.neverSignedIn'))}</Table.Td>
                  <Table.Td ta="end" data-actions>
                    {(allowed.edit || auditLink) && (
                      <Menu position="bottom-end" withinPortal>
                        <Menu.Target>
                          <ActionIcon variant="subtle" color="gray" aria-label={t('users.list.actionsFor', { name: user.fullName })}>
                            <IconDots size={18} aria-hidden />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          {allowed.edit && (
                            <Menu.Item leftSection={<IconPencil size={16} aria-hidden />} onClick={() => setEditing(user)}>
                              {t('common.edit')}
                            </Menu.Item>
                          )}
                          {allowed.changeStatus && (
                            <Menu.Item
                              leftSection={user.status === 'active' ? <IconUserOff size={16} aria-hidden /> : <IconUserCheck size={16} aria-hidden />}
                              onClick={() => toggleStatus(user)}
                            >
                              {user.status === 'active' ? t('users.deactivate.action') : t('users.activate.action')}
                            </Menu.Item>
                          )}
                          {allowed.edit && user.mfaEnabled && user.id !== caller.id && (
                            <Menu.Item leftSection={<IconShieldOff size={16} aria-hidden />} onClick={() => askResetMfa(user)}>
                              {t('users.mfa.reset')}
                            </Menu.Item>
                          )}
                          {auditLink && (
                            <Menu.Item component={Link} to={auditLink} leftSection={<IconListSearch size={16} aria-hidden />}>
                              {t('audit.link')}
                            </Menu.Item>
                          )}
                          {allowed.delete && (
                            <>
                              <Menu.Divider />
                              <Menu.Item color="red" leftSection={<IconEraser size={16} aria-hidden />} onClick={() => askErase(user)}>
                                {t('users.erase.action')}
                              </Menu.Item>
                              <Menu.Item color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={() => askDelete(user)}>
                                {t('common.delete')}
                              </Menu.Item>
                            </>
                          )}
                        </Menu.Dropdown>
                      </Menu>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </StackedTable>
        <ListPagination page={list.page} pageSize={pageSize} total={total} onChange={list.setPage} label={t('users.list.pages')} />
      </Stack>
    );
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title={t('users.list.title')}
        description={isAdmin ? t('users.list.descriptionAdmin') : t('users.list.descriptionCeo')}
        actions={createButton}
      />
      <Card withBorder radius="md" padding="lg">
        <Stack gap="md">
          <Group align="flex-end" gap="md" wrap="wrap">
            <SearchInput
              value={list.values.q}
              onSearch={(q) => list.update({ q })}
              label={t('users.list.search')}
              placeholder={t('users.list.searchPlaceholder')}
            />
            <Select
              label={t('users.fields.role')}
              placeholder={t('users.list.allRoles')}
              data={roleChoices.map((value) => ({ value, label: t(`roles.${value}`) }))}
              value={role ?? null}
              onChange={(value) => list.update({ role: value })}
              clearable
              w={220}
            />
            <Select
              label={t('users.fields.status')}
              placeholder={t('users.list.allStatuses')}
              data={STATUSES.map((value) => ({ value, label: t(`userStatus.${value}`) }))}
              value={status ?? null}
              onChange={(value) => list.update({ status: value })}
              clearable
              w={180}
            />
            {isAdmin && (
              <Select
                label={t('users.fields.enterprise')}
                placeholder={enterprises.query.isPending ? t('app.loading') : t('users.list.allEnterprises')}
                data={enterprises.options}
                value={enterpriseId ?? null}
                onChange={(value) => list.update({ enterpriseId: value })}
                searchable
                clearable
                nothingFoundMessage={t('users.list.noEnterpriseMatch')}
                description={enterprises.partial ? t('users.list.enterprisesPartial', { count: enterprises.options.length }) : undefined}
                error={enterprises.query.isError ? errorMessage(enterprises.query.error, t) : undefined}
                w={260}
              />
            )}
            {users.isFetching && !users.isPending && <Loader size="sm" role="status" aria-label={t('app.loading')} />}
          </Group>
          {body()}
        </Stack>
      </Card>
      <UserEditModal user={editing} onClose={() => setEditing(null)} />
    </Stack>
  );
}
