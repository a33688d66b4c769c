import { Button, Card, Divider, Group, Stack, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDocumentTitle } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import type { Lang } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { type AccountAccess, AccountAccessFields } from '@/components/forms/AccountAccessFields';
import { PageHeader } from '@/components/PageHeader';
import { currentLocale } from '@/i18n';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { href } from '@/lib/paths';
import { all, rules } from '@/lib/validation';
import { useCreateEnterpriseMutation } from '../api';

type Values = { name: string; description: string; ceoFullName: string; ceoEmail: string; ceoAccess: AccountAccess; ceoPassword: string; ceoLocale: Lang };
const FIELDS = ['name', 'description', 'ceoFullName', 'ceoEmail', 'ceoAccess', 'ceoPassword', 'ceoLocale'] as const;

export default function EnterpriseCreateScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const create = useCreateEnterpriseMutation();
  useDocumentTitle(`${t('enterprises.create.pageTitle')} · ${t('app.name')}`);

  const form = useForm<Values>({
    // The CEO is invited by default: they choose their own password, and none travels.
    initialValues: { name: '', description: '', ceoFullName: '', ceoEmail: '', ceoAccess: 'invite', ceoPassword: '', ceoLocale: currentLocale() },
    validate: {
      name: all(rules.required, rules.maxLength(200)),
      description: rules.maxLength(2000),
      ceoFullName: all(rules.required, rules.maxLength(200)),
      ceoEmail: all(rules.email, rules.maxLength(320)),
      ceoPassword: (value, values) => (values.ceoAccess === 'password' ? rules.newPassword(value) : null),
    },
  });
  const fieldProps = useFieldProps(form);

  const submit = form.onSubmit(
    (values) => {
      const inviting = values.ceoAccess === 'invite';
      const ceoEmail = values.ceoEmail.trim();
      create.mutate(
        {
          data: {
            name: values.name.trim(),
            description: values.description.trim() || undefined,
            ceoFullName: values.ceoFullName.trim(),
            ceoEmail,
            // No password: the server invites the CEO by e-mail.
            ceoPassword: inviting ? undefined : values.ceoPassword,
            ceoLocale: values.ceoLocale,
          },
        },
        {
          onSuccess: (enterprise) => {
            notify.success('enterprise.create', inviting ? t('enterprises.create.invited', { email: ceoEmail }) : t('enterprises.create.success'));
            navigate(href('adminEnterprise', { id: enterprise.id }));
          },
          onError: (error) => {
            const taken = isApiRequestError(error) && error.status === 409;
            // Names are unique ignoring case and accents (`name: taken`); otherwise a 409 is the CEO's e-mail address.
            const nameTaken = isApiRequestError(error) && error.status === 409 && error.fields.name === 'taken';
            const message = nameTaken ? t('enterprises.nameTaken') : taken ? t('enterprises.create.ceoEmailTaken') : errorMessage(error, t);
            notify.failure('enterprise.create', t('enterprises.create.failed'), message);
            showServerErrors(
              form,
              serverFieldErrors(error, FIELDS, { passwordFields: ['ceoPassword'], emailField: 'ceoEmail', takenMessages: { name: 'enterprises.nameTaken' } }),
              FIELDS,
            );
          },
        },
      );
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  return (
    <Stack gap="lg" maw={720}>
      <PageHeader
        title={t('enterprises.create.title')}
        description={t('enterprises.create.description')}
        back={{ to: href('adminEnterprises'), label: t('enterprises.backToList') }}
      />
      <Card withBorder radius="md" padding="lg" component="form" onSubmit={submit} noValidate>
        <Stack gap="md">
          <Title order={2} fz="lg">
            {t('enterprises.create.enterpriseSection')}
          </Title>
          <TextInput {...fieldProps('name')} label={t('enterprises.fields.name')} required autoFocus autoComplete="organization" />
          <Textarea {...fieldProps('description')} label={t('enterprises.fields.description')} autosize minRows={3} maxRows={8} />

          <Divider my="xs" />
          <Title order={2} fz="lg">
            {t('enterprises.create.ceoSection')}
          </Title>
          <TextInput {...fieldProps('ceoFullName')} label={t('enterprises.fields.ceoFullName')} required autoComplete="off" />
          <TextInput {...fieldProps('ceoEmail')} label={t('enterprises.fields.ceoEmail')} type="email" inputMode="email" required autoComplete="off" />
          <AccountAccessFields
            form={form}
            fields={{ access: 'ceoAccess', password: 'ceoPassword', locale: 'ceoLocale' }}
            passwordLabel={t('enterprises.fields.ceoPassword')}
          />

          <Group justify="flex-end" gap="sm" mt="sm">
            <Button variant="default" component={Link} to={href('adminEnterprises')}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending}>
              {t('enterprises.create.submit')}
            </Button>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
