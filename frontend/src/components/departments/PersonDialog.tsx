import { Anchor, Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useListEnterpriseUsers } from '@/api/generated/enterprises/enterprises';
import type { Department, UserSummary } from '@/api/generated/model';
import { STAFF_ROLES, isStaffRole } from '@/lib/authorization';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';

/** How many people the pickers load: the API's largest page. */
const STAFF_PAGE_SIZE = 100;

type PersonDialogProps = {
  enterpriseId: string;
  department: Department | null;
  /** `head`: make someone the head; `member`: add someone to the department. */
  kind: 'head' | 'member';
  onClose: () => void;
  onPick: (department: Department, person: UserSummary) => Promise<void>;
  /** Where "Create a user" leads (with the enterprise chosen for the platform admin). */
  createUserLink?: string;
};

/** Picks one of the enterprise's department staff, for the head of a department or a new member. */
export function PersonDialog({ enterpriseId, department, kind, onClose, onPick, createUserLink = href('adminUserCreate') }: PersonDialogProps) {
  const { t } = useTranslation();
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const opened = department !== null;
  const staff = useListEnterpriseUsers(enterpriseId, { role: [...STAFF_ROLES], page: 1, pageSize: STAFF_PAGE_SIZE }, { query: { enabled: opened } });

  const departmentName = department ? t(`departmentTypes.${department.type}`) : '';
  const excluded = new Set(kind === 'head' ? [department?.head?.id] : (department?.members ?? []).map((m) => m.id));
  const people = (staff.data?.items ?? []).filter((user) => isStaffRole(user.role) && !excluded.has(user.id));
  const options = people.map((user) => ({ value: user.id, label: t('departments.personOption', { name: user.fullName, email: user.email }) }));
  const partial = staff.data ? staff.data.total > staff.data.items.length : false;

  const close = () => {
    setValue(null);
    setError(null);
    onClose();
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const person = people.find((user) => user.id === value);
    if (!department || !person) {
      setError(t('validation.required'));
      return;
    }
    setSaving(true);
    try {
      await onPick(department, { id: person.id, fullName: person.fullName, email: person.email, role: person.role });
      close();
    } catch {
      // The toast said why; the dialog stays open to try again.
    } finally {
      setSaving(false);
    }
  };

  const title = kind === 'head' ? t('departments.headDialog.title', { department: departmentName }) : t('departments.memberDialog.title', { department: departmentName });
  const label = kind === 'head' ? t('departments.headDialog.label') : t('departments.memberDialog.label');
  const hint = kind === 'head' ? t('departments.headDialog.hint', { department: departmentName }) : t('departments.memberDialog.hint');

  return (
    <Modal opened={opened} onClose={close} title={title}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">{hint}</Text>
          {staff.isError ? (
            <Text size="sm" c="red" role="alert">
              {errorMessage(staff.error, t)}
            </Text>
          ) : (
            <Select
              label={label}
              placeholder={staff.isPending ? t('app.loading') : t('departments.pickPerson')}
              data={options}
              value={value}
              onChange={(next) => {
                setValue(next);
                setError(null);
              }}
              error={error}
              searchable
              required
              disabled={staff.isPending}
              nothingFoundMessage={t('departments.noMatch')}
              description={partial ? t('departments.partialStaff', { count: staff.data?.items.length ?? 0 }) : undefined}
              comboboxProps={{ withinPortal: true }}
              data-autofocus
            />
          )}
          {staff.isSuccess && people.length === 0 && (
            <Text size="sm" c="dimmed">
              {t('departments.noStaff')}{' '}
              <Anchor component={Link} to={createUserLink} size="sm">
                {t('departments.createUser')}
              </Anchor>
            </Text>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={saving} disabled={staff.isPending || staff.isError}>
              {kind === 'head' ? t('departments.headDialog.submit') : t('departments.memberDialog.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
