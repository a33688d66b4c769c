import { Anchor, Loader, Modal, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useListEnterpriseUsers } from '@/api/generated/enterprises/enterprises';
import type { Department, UserSummary } from '@/api/generated/model';
import { STAFF_ROLES, isStaffRole } from '@/lib/authorization';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { DialogActions } from '@/components/DialogActions';

/** How many matches the picker shows; typing narrows them on the server (any enterprise size). */
const PICKER_PAGE_SIZE = 20;

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
  const [picked, setPicked] = useState<UserSummary | null>(null);
  const [search, setSearch] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const opened = department !== null;
  const optionLabel = (user: UserSummary) => t('departments.personOption', { name: user.fullName, email: user.email });
  // Once someone is picked the input shows their label: that is not a search.
  const typed = picked && search === optionLabel(picked) ? '' : search.trim();
  const [query] = useDebouncedValue(typed, 250);
  const staff = useListEnterpriseUsers(
    enterpriseId,
    { role: [...STAFF_ROLES], q: query || undefined, page: 1, pageSize: PICKER_PAGE_SIZE },
    { query: { enabled: opened, placeholderData: keepPreviousData } },
  );

  const departmentName = department ? t(`departmentTypes.${department.type}`) : '';
  const excluded = new Set(kind === 'head' ? [department?.head?.id] : (department?.members ?? []).map((m) => m.id));
  // A person whose data was erased has no address: never offered as a head or member.
  const people: UserSummary[] = (staff.data?.items ?? [])
    .filter((user) => isStaffRole(user.role) && !excluded.has(user.id) && !user.erased)
    .map(({ id, fullName, email, role }) => ({ id, fullName, email: email ?? '', role }));
  if (picked && !people.some((user) => user.id === picked.id)) people.unshift(picked);
  const options = people.map((user) => ({ value: user.id, label: optionLabel(user) }));
  const more = staff.data && staff.data.total > staff.data.items.length ? staff.data.total - staff.data.items.length : 0;

  const close = () => {
    setPicked(null);
    setSearch('');
    setError(null);
    onClose();
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const person = picked;
    if (!department || !person) {
      setError(t('validation.required'));
      return;
    }
    setSaving(true);
    try {
      await onPick(department, person);
      close();
    } catch {
      // The toast said why; the dialog stays open to try again.
    } finally {
      setSaving(false);
    }
  };

  const title =
    kind === 'head' ? t('departments.headDialog.title', { department: departmentName }) : t('departments.memberDialog.title', { department: departmentName });
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
              value={picked?.id ?? null}
              onChange={(next) => {
                setPicked(people.find((user) => user.id === next) ?? null);
                setError(null);
              }}
              searchable
              searchValue={search}
              onSearchChange={setSearch}
              // The server already filtered by what was typed (name or e-mail).
              filter={({ options: all }) => all}
              rightSection={staff.isFetching ? <Loader size="xs" role="status" aria-label={t('app.loading')} /> : undefined}
              error={error}
              required
              disabled={staff.isPending}
              nothingFoundMessage={staff.isFetching ? t('app.loading') : t('departments.noMatch')}
              description={more > 0 ? t('departments.moreStaff', { count: more }) : undefined}
              comboboxProps={{ withinPortal: true }}
              data-autofocus
            />
          )}
          {staff.isSuccess && !query && people.length === 0 && (
            <Text size="sm" c="dimmed">
              {t('departments.noStaff')}{' '}
              <Anchor component={Link} to={createUserLink} size="sm">
                {t('departments.createUser')}
              </Anchor>
            </Text>
          )}
          <DialogActions
            onCancel={close}
            submitLabel={kind === 'head' ? t('departments.headDialog.submit') : t('departments.memberDialog.submit')}
            saving={saving}
            disabled={staff.isPending || staff.isError}
          />
        </Stack>
      </form>
    </Modal>
  );
}
