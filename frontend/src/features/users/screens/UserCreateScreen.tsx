import { Button, Card, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDocumentTitle } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import type { Lang, Role } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { useEnterpriseOptions } from '@/components/enterprises/use-enterprise-options';
import { type AccountAccess, AccountAccessFields } from '@/components/forms/AccountAccessFields';
import { PageHeader } from '@/components/PageHeader';
import { currentLocale } from '@/i18n';
import { creatableRoles, isStaffRole, isTenantRole } from '@/lib/authorization';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { href } from '@/lib/paths';
import { useCurrentUser } from '@/lib/session';
import { all, rules } from '@/lib/validation';
import { useCreateUserMutation, useDepartments } from '../api';

type Values = {
  fullName: string;
  email: string;
  access: AccountAccess;
  password: string;
  locale: Lang;
  role: Role | null;
  enterpriseId: string | null;
  departmentId: string | null;
};
const FIELDS = ['fullName', 'email', 'access', 'password', 'locale', 'role', 'enterpriseId', 'departmentId'] as const;

export default function UserCreateScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const caller = useCurrentUser();
  const isAdmin = caller.role === 'PlatformAdmin';
  const roles = creatableRoles(caller.role);
  const [params] = useSearchParams();
  const create = useCreateUserMutation();
  useDocumentTitle(`${t('users.create.pageTitle')} · ${t('app.name')}`);

  const form = useForm<Values>({
    initialValues: {
      fullName: '',
      email: '',
      // Invited by default: they choose their own password, and none travels.
      access: 'invite',
      password: '',
      // Their e-mails in the language of whoever invites them, unless told otherwise.
      locale: currentLocale(),
      // A CEO only creates staff: start from the most common choice.
      role: isAdmin ? null : 'DepartmentUser',
      enterpriseId: isAdmin ? params.get('enterpriseId') : (caller.enterpriseId ?? null),
      departmentId: null,
    },
    validate: {
      fullName: all(rules.required, rules.maxLength(200)),
      email: all(rules.email, rules.maxLength(320)),
      password: (value, values) => (values.access === 'password' ? rules.newPassword(value) : null),
      role: rules.required,
      enterpriseId: (value, values) => (values.role && isTenantRole(values.role) ? rules.required(value) : null),
    },
    onValuesChange: (values, previous) => {
      // A department belongs to one enterprise, and only staff have one.
      const leftStaff = values.role !== previous.role && !(values.role && isStaffRole(values.role));
      if (values.departmentId && (values.enterpriseId !== previous.enterpriseId || leftStaff)) form.setFieldValue('departmentId', null);
    },
  });
  const fieldProps = useFieldProps(form);
  const { role, enterpriseId } = form.values;
  const needsEnterprise = isAdmin && role !== null && isTenantRole(role);
  const canHaveDepartment = role !== null && isStaffRole(role);
  const enterprises = useEnterpriseOptions(isAdmin);
  const { departments, query: departmentsQuery } = useDepartments(canHaveDepartment ? enterpriseId : null);

  const submit = form.onSubmit(
    (values) => {
      if (!values.role) return;
      const inviting = values.access === 'invite';
      create.mutate(
        {
          data: {
            fullName: values.fullName.trim(),
            email: values.email.trim(),
            // No password: the server invites the person by e-mail.
            password: inviting ? undefined : values.password,
            locale: values.locale,
            role: values.role,
            enterpriseId: isAdmin && isTenantRole(values.role) ? (values.enterpriseId ?? undefined) : undefined,
            departmentId: isStaffRole(values.role) ? (values.departmentId ?? undefined) : undefined,
          },
        },
        {
          onSuccess: (user) => {
            notify.success(
              'user.create',
              inviting ? t('users.create.invited', { name: user.fullName, email: user.email }) : t('users.create.success', { name: user.fullName }),
            );
            navigate(href('adminUsers'));
          },
          onError: (error) => {
            // A 409 `conflict` is the address; a limit reached (`limit_reached`) says which.
            const taken = isApiRequestError(error) && error.status === 409 && error.code === 'conflict';
            notify.failure('user.create', t('users.create.failed'), taken ? t('validation.emailTaken') : errorMessage(error, t));
            showServerErrors(form, serverFieldErrors(error, FIELDS, { passwordFields: ['password'], emailField: 'email' }), FIELDS);
          },
        },
      );
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  return (
    <Stack gap="lg" maw={720}>
      <PageHeader
        title={t('users.create.title')}
        description={isAdmin ? t('users.create.descriptionAdmin') : t('users.create.descriptionCeo')}
        back={{ to: href('adminUsers'), label: t('users.backToList') }}
      />
      <Card withBorder radius="md" padding="lg" component="form" onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput {...fieldProps('fullName')} label={t('users.fields.fullName')} required autoFocus autoComplete="off" />
          <TextInput {...fieldProps('email')} label={t('users.fields.email')} type="email" inputMode="email" required autoComplete="off" />
          <AccountAccessFields form={form} fields={{ access: 'access', password: 'password', locale: 'locale' }} passwordLabel={t('users.fields.password')} />
          <Select
            {...fieldProps('role')}
            label={t('users.fields.role')}
            placeholder={t('users.create.pickRole')}
            data={roles.map((value) => ({ value, label: t(`roles.${value}`) }))}
            allowDeselect={false}
            required
          />
          {needsEnterprise && (
            <Select
              {...fieldProps('enterpriseId')}
              label={t('users.fields.enterprise')}
              placeholder={enterprises.query.isPending ? t('app.loading') : t('users.create.pickEnterprise')}
              data={enterprises.options}
              searchable
              required
              nothingFoundMessage={t('users.list.noEnterpriseMatch')}
              description={enterprises.partial ? t('users.list.enterprisesPartial', { count: enterprises.options.length }) : undefined}
              error={enterprises.query.isError ? errorMessage(enterprises.query.error, t) : fieldProps('enterpriseId').error}
            />
          )}
          {canHaveDepartment && (
            <Select
              {...fieldProps('departmentId')}
              label={t('users.fields.department')}
              placeholder={!enterpriseId ? t('users.create.pickEnterpriseFirst') : t('users.create.pickDepartment')}
              description={t('users.create.departmentHint')}
              data={departments.map((department) => ({ value: department.id, label: t(`departmentTypes.${department.type}`) }))}
              disabled={!enterpriseId || departmentsQuery.isError}
              clearable
              error={departmentsQuery.isError ? errorMessage(departmentsQuery.error, t) : fieldProps('departmentId').error}
            />
          )}
          <Group justify="flex-end" gap="sm" mt="sm">
            <Button variant="default" component={Link} to={href('adminUsers')}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending}>
              {t('users.create.submit')}
            </Button>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
