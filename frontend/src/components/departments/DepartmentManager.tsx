import { ActionIcon, Anchor, Badge, Button, Card, Group, SimpleGrid, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import { IconCrownOff, IconPencil, IconTable, IconUserPlus, IconUserMinus, IconUserStar } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useListEnterpriseDepartments } from '@/api/generated/enterprises/enterprises';
import type { Department } from '@/api/generated/model';
import { QueryError } from '../data/QueryError';
import { RoleBadge } from '../data/badges';
import { DescriptionDialog } from './DescriptionDialog';
import { sortDepartments } from './department-order';
import { PersonDialog } from './PersonDialog';
import { useDepartmentActions } from './use-department-actions';

type Dialog = { kind: 'description' | 'head' | 'member'; department: Department } | null;

type DepartmentManagerProps = {
  enterpriseId: string;
  /** Where "Create a user" leads from an empty picker. */
  createUserLink?: string;
  /** The heading level of each department's name (the section title above is one level up). */
  headingOrder?: 3 | 4;
  /** Where each department's spreadsheets open (the CEO reads them); no link without it. */
  spreadsheetsLink?: (department: Department) => string;
};

/**
 * An enterprise's five departments: description, head and members, with the changes the
 * platform admin and the enterprise's CEO may make. Used by the admin's enterprise detail and
 * the CEO's home.
 */
export function DepartmentManager({ enterpriseId, createUserLink, headingOrder = 3, spreadsheetsLink }: DepartmentManagerProps) {
  const { t } = useTranslation();
  const departments = useListEnterpriseDepartments(enterpriseId);
  const actions = useDepartmentActions(enterpriseId);
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);
  const dialogFor = (kind: NonNullable<Dialog>['kind']) => (dialog?.kind === kind ? dialog.department : null);

  if (departments.isPending) {
    return (
      <SimpleGrid cols={{ base: 1, lg: 2 }} role="status" aria-label={t('app.loading')} aria-busy>
        {Array.from({ length: 4 }, (_, index) => (
          <Skeleton key={index} height={180} radius="md" />
        ))}
      </SimpleGrid>
    );
  }
  if (departments.isError) {
    return <QueryError error={departments.error} onRetry={() => void departments.refetch()} retrying={departments.isFetching} />;
  }

  const confirmRemove = (department: Department, person: Department['members'][number]) => {
    const departmentName = t(`departmentTypes.${department.type}`);
    openConfirmModal({
      title: t('departments.removeDialog.title', { department: departmentName }),
      children: <Text size="sm">{t('departments.removeDialog.body', { name: person.fullName, department: departmentName })}</Text>,
      labels: { confirm: t('departments.removeDialog.confirm'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () => void actions.removeMember(department, person),
    });
  };

  return (
    <>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        {sortDepartments(departments.data).map((department) => (
          <DepartmentCard
            key={department.id}
            department={department}
            headingOrder={headingOrder}
            spreadsheetsLink={spreadsheetsLink?.(department)}
            busy={actions.pending}
            onEditDescription={() => setDialog({ kind: 'description', department })}
            onSetHead={() => setDialog({ kind: 'head', department })}
            onClearHead={() => void actions.clearHead(department)}
            onAddMember={() => setDialog({ kind: 'member', department })}
            onRemoveMember={(person) => confirmRemove(department, person)}
          />
        ))}
      </SimpleGrid>

      <DescriptionDialog department={dialogFor('description')} onClose={close} onSave={actions.editDescription} />
      <PersonDialog
        enterpriseId={enterpriseId}
        kind="head"
        department={dialogFor('head')}
        onClose={close}
        onPick={actions.setHead}
        createUserLink={createUserLink}
      />
      <PersonDialog
        enterpriseId={enterpriseId}
        kind="member"
        department={dialogFor('member')}
        onClose={close}
        onPick={actions.addMember}
        createUserLink={createUserLink}
      />
    </>
  );
}

type DepartmentCardProps = {
  department: Department;
  headingOrder: 3 | 4;
  spreadsheetsLink?: string;
  busy: boolean;
  onEditDescription: () => void;
  onSetHead: () => void;
  onClearHead: () => void;
  onAddMember: () => void;
  onRemoveMember: (person: Department['members'][number]) => void;
};

function DepartmentCard({
  department,
  headingOrder,
  spreadsheetsLink,
  busy,
  onEditDescription,
  onSetHead,
  onClearHead,
  onAddMember,
  onRemoveMember,
}: DepartmentCardProps) {
  const { t } = useTranslation();
  const name = t(`departmentTypes.${department.type}`);
  const subheading = headingOrder === 3 ? 'h4' : 'h5';
  const headingId = `department-${department.id}`;
  const head = department.head ?? null;
  // The head first, then everyone else as the server sorted them (by name).
  const members = [...department.members].sort((a, b) => Number(b.id === head?.id) - Number(a.id === head?.id));

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={headingId} data-testid={`department-${department.type}`}>
      <Stack gap="md">
        {/* The button goes under the text when both do not fit (a long label, in French). */}
        <Group justify="space-between" align="flex-start" gap="xs">
          <Stack gap={4} style={{ minWidth: 0, flex: '1 1 12rem' }}>
            <Title order={headingOrder} fz="lg" id={headingId}>
              {name}
            </Title>
            <Text size="sm" c={department.description ? undefined : 'dimmed'} style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>
              {department.description || t('departments.noDescription')}
            </Text>
            {spreadsheetsLink && (
              <Anchor component={Link} to={spreadsheetsLink} size="sm" w="fit-content" aria-label={t('departments.spreadsheetsOf', { department: name })}>
                <IconTable size={14} aria-hidden style={{ verticalAlign: 'middle', marginInlineEnd: 4 }} />
                {t('departments.spreadsheets')}
              </Anchor>
            )}
          </Stack>
          <Button variant="subtle" size="compact-sm" leftSection={<IconPencil size={14} aria-hidden />} onClick={onEditDescription}>
            {t('departments.editDescription')}
          </Button>
        </Group>

        <Stack gap={6}>
          <Text size="sm" fw={600} component={subheading} m={0}>
            {t('departments.head')}
          </Text>
          <Group justify="space-between" gap="xs" wrap="wrap">
            {head ? (
              <div style={{ minWidth: 0 }}>
                <Text size="sm" fw={500} data-testid="department-head">
                  {head.fullName}
                </Text>
                <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {head.email}
                </Text>
              </div>
            ) : (
              <Text size="sm" c="dimmed" data-testid="department-head">
                {t('departments.noHead')}
              </Text>
            )}
            <Group gap="xs">
              <Button variant="light" size="compact-sm" leftSection={<IconUserStar size={14} aria-hidden />} onClick={onSetHead}>
                {head ? t('departments.changeHead') : t('departments.setHead')}
              </Button>
              {head && (
                <Button
                  variant="subtle"
                  color="gray"
                  size="compact-sm"
                  leftSection={<IconCrownOff size={14} aria-hidden />}
                  onClick={onClearHead}
                  disabled={busy}
                >
                  {t('departments.clearHead')}
                </Button>
              )}
            </Group>
          </Group>
        </Stack>

        <Stack gap={6}>
          <Group justify="space-between" gap="xs">
            <Text size="sm" fw={600} component={subheading} m={0}>
              {t('departments.members', { count: members.length })}
            </Text>
            <Button variant="light" size="compact-sm" leftSection={<IconUserPlus size={14} aria-hidden />} onClick={onAddMember}>
              {t('departments.addMember')}
            </Button>
          </Group>
          {members.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('departments.noMembers')}
            </Text>
          ) : (
            <Stack gap={4} component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label={t('departments.membersOf', { department: name })}>
              {members.map((member) => (
                <Group key={member.id} component="li" justify="space-between" gap="xs" wrap="nowrap">
                  <div style={{ minWidth: 0 }}>
                    <Group gap={6} wrap="wrap">
                      <Text size="sm" fw={500}>
                        {member.fullName}
                      </Text>
                      {member.id === head?.id ? (
                        <Badge size="xs" variant="filled" style={{ textTransform: 'none' }}>
                          {t('departments.headBadge')}
                        </Badge>
                      ) : (
                        <RoleBadge role={member.role} />
                      )}
                    </Group>
                    <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                      {member.email}
                    </Text>
                  </div>
                  <Tooltip label={t('departments.removeMember')} withinPortal>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      onClick={() => onRemoveMember(member)}
                      aria-label={t('departments.removeMemberNamed', { name: member.fullName, department: name })}
                    >
                      <IconUserMinus size={16} aria-hidden />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              ))}
            </Stack>
          )}
        </Stack>
      </Stack>
    </Card>
  );
}
