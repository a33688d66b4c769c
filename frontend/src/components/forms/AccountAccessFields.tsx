import { PasswordInput, Radio, Select, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LOCALES } from '@/i18n';
import { useFieldProps } from '@/lib/forms';

/** How a new account's person gets in: invited by e-mail (they choose their password) or with a password set now. */
export type AccountAccess = 'invite' | 'password';

type Form<V> = Parameters<typeof useFieldProps<V>>[0];
type Field<V> = keyof V & string;

type AccountAccessFieldsProps<V> = {
  form: Form<V>;
  /** The form's fields: the AccountAccess, the password (shown only when set now), the person's language. */
  fields: { access: Field<V>; password: Field<V>; locale: Field<V> };
  passwordLabel: string;
};

/**
 * The choice, on the forms that create an account, between inviting the person by e-mail (the
 * default: no password travels) and setting their password now; and the person's language, the
 * one of their e-mails (the invitation first).
 */
export function AccountAccessFields<V>({ form, fields, passwordLabel }: AccountAccessFieldsProps<V>) {
  const { t } = useTranslation();
  const fieldProps = useFieldProps(form);
  const access = fieldProps(fields.access);
  return (
    <Stack gap="md">
      <Radio.Group {...access} label={t('users.access.label')}>
        <Stack gap="sm" mt="xs">
          <Radio value="invite" label={t('users.access.invite')} description={t('users.access.inviteHint')} />
          <Radio value="password" label={t('users.access.password')} description={t('users.access.passwordHint')} />
        </Stack>
      </Radio.Group>
      {access.value === 'password' && (
        <PasswordInput
          {...fieldProps(fields.password)}
          label={passwordLabel}
          description={t('validation.minLength')}
          required
          autoComplete="new-password"
          visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
        />
      )}
      <Select
        {...fieldProps(fields.locale)}
        label={t('users.access.locale')}
        description={t('users.access.localeHint')}
        data={LOCALES.map((value) => ({ value, label: t(`language.${value}`) }))}
        allowDeselect={false}
      />
    </Stack>
  );
}
