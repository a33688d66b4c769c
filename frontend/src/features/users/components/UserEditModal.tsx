import { Modal, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Role, User } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { editableRoles, isStaffRole, userActionsFor } from '@/lib/authorization';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { useCurrentUser } from '@/lib/session';
import { all, rules } from '@/lib/validation';
import { type UserChanges, useDepartments, useUpdateUserMutation } from '../api';
import { DialogActions } from '@/components/DialogActions';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';

type Values = { fullName: string; email: string; role: Role; departmentId: string; password: string };
const FIELDS = ['fullName', 'email', 'role', 'departmentId', 'password'] as const;
/** The Select's value for "no department" (a Select value cannot be null and selectable). */
const NO_DEPARTMENT = 'none';

const valuesOf = (user: User): Values => ({
  fullName: user.fullName,
  email: user.email ?? '',
  role: user.role,
  departmentId: user.departmentId ?? NO_DEPARTMENT,
  password: '',
});

/** Only what changed, so that the server applies (and checks) no more than that. */
export function userChanges(user: User, values: Values): UserChanges {
  const changes: UserChanges = {};
  if (values.fullName.trim() !== user.fullName) changes.fullName = values.fullName.trim();
  if (values.email.trim() !== user.email) changes.email = values.email.trim();
  if (values.role !== user.role) changes.role = values.role;
  const department = isStaffRole(values.role) && values.departmentId !== NO_DEPARTMENT ? values.departmentId : null;
  if (department !== (user.departmentId ?? null)) changes.departmentId = department;
  if (values.password) changes.password = values.password;
  return changes;
}

type UserEditModalProps = { user: User | null; onClose: () => void };

/** Edits an account: name, e-mail, role (within what the caller may give), department, password. */
export function UserEditModal({ user, onClose }: UserEditModalProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={user !== null} onClose={onClose} title={user ? t('users.edit.title', { name: user.fullName }) : ''}>
      {user && <UserEditForm key={user.id} user={user} onClose={onClose} />}
    </Modal>
  );
}

function UserEditForm({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation();
  const caller = useCurrentUser();
  const update = useUpdateUserMutation();
  const form = useForm<Values>({
    initialValues: valuesOf(user),
    validate: {
      fullName: all(rules.required, rules.maxLength(200)),
      email: all(rules.email, rules.maxLength(320)),
      password: rules.optionalNewPassword,
    },
  });
  const fieldProps = useFieldProps(form);
  const staff = isStaffRole(form.values.role);
  const { departments, query: departmentsQuery } = useDepartments(staff ? user.enterpriseId : null);
  const roles = editableRoles(caller.role, user.role);
  const allowed = userActionsFor(caller, user);
  const [failure, setFailure] = useState<Notice | null>(null);

  const submit = form.onSubmit(
    (values) => {
      setFailure(null);
      const changes = userChanges(user, values);
      if (Object.keys(changes).length === 0) {
        onClose();
        return;
      }
      update.mutate(
        { id: user.id, data: changes },
        {
          onSuccess: (updated) => {
            notify.success(`user.update:${user.id}`, t('users.edit.success', { name: updated.fullName }));
            onClose();
          },
          onError: (error) => {
            // What a field explains is said at the field; anything else at the top of the form.
            if (isApiRequestError(error) && error.status === 409 && changes.email !== undefined) {
              form.setFieldError('email', 'validation.emailTaken');
              focusFirstError(form, { email: 'validation.emailTaken' }, FIELDS);
            } else if (!showServerErrors(form, serverFieldErrors(error, FIELDS, { passwordFields: ['password'] }), FIELDS)) {
              setFailure({ title: t('users.edit.failed'), message: errorMessage(error, t) });
            }
          },
        },
      );
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <InlineNotice notice={failure} onClose={() => setFailure(null)} />
        <TextInput {...fieldProps('fullName')} label={t('users.fields.fullName')} required data-autofocus autoComplete="off" />
        <TextInput {...fieldProps('email')} label={t('users.fields.email')} type="email" inputMode="email" required autoComplete="off" />
        <Select
          {...fieldProps('role')}
          label={t('users.fields.role')}
          data={roles.map((role) => ({ value: role, label: t(`roles.${role}`) }))}
          allowDeselect={false}
          disabled={!allowed.changeRole || roles.length < 2}
          description={!allowed.changeRole ? t('users.edit.ownRole') : undefined}
          comboboxProps={{ withinPortal: true }}
        />
        {staff && (
          <Select
            {...fieldProps('departmentId')}
            label={t('users.fields.department')}
            data={[
              { value: NO_DEPARTMENT, label: t('users.noDepartment') },
              ...departments.map((department) => ({ value: department.id, label: t(`departmentTypes.${department.type}`) })),
            ]}
            allowDeselect={false}
            disabled={departmentsQuery.isPending || departmentsQuery.isError}
            error={departmentsQuery.isError ? errorMessage(departmentsQuery.error, t) : fieldProps('departmentId').error}
            comboboxProps={{ withinPortal: true }}
          />
        )}
        <PasswordInput
          {...fieldProps('password')}
          label={t('users.fields.newPassword')}
          description={t('users.edit.passwordHint')}
          autoComplete="new-password"
          visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
        />
        <DialogActions onCancel={onClose} saving={update.isPending} />
      </Stack>
    </form>
  );
}
