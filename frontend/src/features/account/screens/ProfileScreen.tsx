import { Button, Card, Group, PasswordInput, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDocumentTitle } from '@mantine/hooks';
import { IconBell, IconFingerprint, IconKey, IconLanguage, IconShieldHalf, IconUser } from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { NotificationPreferences, User } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { RoleBadge } from '@/components/data/badges';
import { PageHeader } from '@/components/PageHeader';
import { LOCALES, type Locale, changeLocale, i18n, isLocale } from '@/i18n';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { useCurrentUser } from '@/lib/session';
import { all, rules } from '@/lib/validation';
import { keepAccount, useChangeMyPasswordMutation, useUpdateMeMutation } from '../api';
import { PasskeysContent } from '../components/PasskeysSection';
import { TwoStepContent } from '../components/TwoStepSection';

/** What a stored user from before the preferences existed reads as (the server's defaults). */
const DEFAULT_PREFERENCES: NotificationPreferences = { reports: true, signIns: true, invitations: true };

/** One part of the profile: a card with its heading (h2) and what it holds. */
function Section({ id, icon, title, description, children }: { id: string; icon: ReactNode; title: string; description?: string; children: ReactNode }) {
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={id}>
      <Stack gap="md">
        <Stack gap={4}>
          <Group gap="xs" wrap="nowrap">
            {icon}
            <Title order={2} fz="lg" id={id}>
              {title}
            </Title>
          </Group>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </Stack>
        {children}
      </Stack>
    </Card>
  );
}

function AccountSection({ user }: { user: User }) {
  const { t } = useTranslation();
  const update = useUpdateMeMutation();
  const form = useForm({ initialValues: { fullName: user.fullName }, validate: { fullName: all(rules.required, rules.maxLength(200)) } });
  const fieldProps = useFieldProps(form);

  const submit = form.onSubmit(
    ({ fullName }) =>
      update.mutate(
        { data: { fullName: fullName.trim() } },
        {
          onSuccess: (saved) => {
            notify.success('profile.account', t('profile.account.saved'));
            keepAccount(saved);
          },
          onError: (error) => {
            notify.failure('profile.account', t('profile.account.failed'), errorMessage(error, t));
            showServerErrors(form, serverFieldErrors(error, ['fullName'] as const), ['fullName']);
          },
        },
      ),
    (errors) => focusFirstError(form, errors, ['fullName']),
  );

  return (
    <Section id="profile-account" icon={<IconUser size={20} aria-hidden />} title={t('profile.account.title')}>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput {...fieldProps('fullName')} label={t('profile.account.fullName')} required autoComplete="name" />
          <TextInput label={t('profile.account.email')} value={user.email ?? ''} description={t('profile.account.emailHint')} readOnly type="email" />
          <Group gap="xl" wrap="wrap">
            <Stack gap={4}>
              <Text size="sm" fw={500} id="profile-role">
                {t('profile.account.role')}
              </Text>
              <div aria-labelledby="profile-role" role="group">
                <RoleBadge role={user.role} />
              </div>
            </Stack>
            {user.enterpriseName && (
              <Stack gap={4} style={{ minWidth: 0 }}>
                <Text size="sm" fw={500}>
                  {t('profile.account.enterprise')}
                </Text>
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {user.enterpriseName}
                </Text>
              </Stack>
            )}
          </Group>
          <Group justify="flex-end">
            <Button type="submit" loading={update.isPending}>
              {t('profile.account.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

function LanguageSection({ user }: { user: User }) {
  const { t } = useTranslation();
  const update = useUpdateMeMutation();
  const form = useForm<{ locale: Locale }>({ initialValues: { locale: isLocale(user.locale) ? user.locale : 'en' } });

  const submit = form.onSubmit(({ locale }) =>
    update.mutate(
      { data: { locale } },
      {
        // The interface follows the account: the confirmation is in the language chosen.
        onSuccess: (saved) => {
          void changeLocale(locale).then(() => notify.success('profile.language', i18n.t('profile.language.saved')));
          keepAccount(saved);
        },
        onError: (error) => notify.failure('profile.language', t('profile.language.failed'), errorMessage(error, t)),
      },
    ),
  );

  return (
    <Section
      id="profile-language"
      icon={<IconLanguage size={20} aria-hidden />}
      title={t('profile.language.title')}
      description={t('profile.language.description')}
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Select
            {...form.getInputProps('locale')}
            label={t('profile.language.label')}
            data={LOCALES.map((value) => ({ value, label: t(`language.${value}`) }))}
            allowDeselect={false}
            maw={320}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={update.isPending}>
              {t('profile.language.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

type PasswordValues = { currentPassword: string; newPassword: string; confirm: string };
const PASSWORD_FIELDS = ['currentPassword', 'newPassword', 'confirm'] as const;

function PasswordSection() {
  const { t } = useTranslation();
  const change = useChangeMyPasswordMutation();
  const form = useForm<PasswordValues>({
    initialValues: { currentPassword: '', newPassword: '', confirm: '' },
    validate: {
      currentPassword: rules.required,
      newPassword: rules.newPassword,
      confirm: (value, values): ParseKeys | null => {
        if (!value) return 'validation.required';
        return value !== values.newPassword ? 'validation.passwordMismatch' : null;
      },
    },
  });
  const fieldProps = useFieldProps(form);
  const passwordInput = (field: (typeof PASSWORD_FIELDS)[number], label: string, autoComplete: string, description?: string) => (
    <PasswordInput
      {...fieldProps(field)}
      label={label}
      description={description}
      required
      autoComplete={autoComplete}
      visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
    />
  );

  const submit = form.onSubmit(
    ({ currentPassword, newPassword }) =>
      change.mutate(
        { data: { currentPassword, newPassword } },
        {
          onSuccess: () => {
            form.reset();
            notify.success('profile.password', t('profile.password.changed'));
          },
          onError: (error) => {
            const mapped = serverFieldErrors(error, PASSWORD_FIELDS, { passwordFields: ['newPassword'] });
            // A wrong current password is `invalid`: said plainly.
            if (isApiRequestError(error) && error.fields.currentPassword === 'invalid') mapped.errors.currentPassword = 'profile.password.currentWrong';
            notify.failure('profile.password', t('profile.password.failed'), errorMessage(error, t));
            showServerErrors(form, mapped, PASSWORD_FIELDS);
          },
        },
      ),
    (errors) => focusFirstError(form, errors, PASSWORD_FIELDS),
  );

  return (
    <Section id="profile-password" icon={<IconKey size={20} aria-hidden />} title={t('profile.password.title')} description={t('profile.password.description')}>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          {passwordInput('currentPassword', t('profile.password.current'), 'current-password')}
          {passwordInput('newPassword', t('profile.password.new'), 'new-password', t('validation.minLength'))}
          {passwordInput('confirm', t('profile.password.confirm'), 'new-password')}
          <Group justify="flex-end">
            <Button type="submit" loading={change.isPending}>
              {t('profile.password.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

const PREFERENCES = ['reports', 'signIns', 'invitations'] as const;

function NotificationsSection({ user }: { user: User }) {
  const { t } = useTranslation();
  const update = useUpdateMeMutation();
  const form = useForm<NotificationPreferences>({ initialValues: { ...DEFAULT_PREFERENCES, ...user.notifications } });

  const submit = form.onSubmit((notifications) =>
    update.mutate(
      { data: { notifications } },
      {
        onSuccess: (saved) => {
          notify.success('profile.notifications', t('profile.notifications.saved'));
          keepAccount(saved);
        },
        onError: (error) => notify.failure('profile.notifications', t('profile.notifications.failed'), errorMessage(error, t)),
      },
    ),
  );

  return (
    <Section
      id="profile-notifications"
      icon={<IconBell size={20} aria-hidden />}
      title={t('profile.notifications.title')}
      description={t('profile.notifications.description')}
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          {PREFERENCES.map((key) => (
            <Switch
              key={key}
              {...form.getInputProps(key, { type: 'checkbox' })}
              label={t(`profile.notifications.${key}`)}
              description={t(`profile.notifications.${key}Hint`)}
              // Its name is the label alone (Mantine's label wraps the description too, which is its description).
              aria-label={t(`profile.notifications.${key}`)}
              // No on/off words in the track: its empty label box would only overflow it.
              styles={{ trackLabel: { display: 'none' } }}
            />
          ))}
          <Group justify="flex-end">
            <Button type="submit" loading={update.isPending}>
              {t('profile.notifications.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

/** The signed-in person's own account: name, language, password and the e-mails they want (every role; from the user menu). */
export default function ProfileScreen() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  useDocumentTitle(`${t('profile.pageTitle')} · ${t('app.name')}`);
  return (
    <Stack gap="lg" maw={720}>
      <PageHeader title={t('profile.title')} description={t('profile.description')} />
      {/* Keyed by what the account holds: a change made elsewhere (the language menu) shows here. */}
      <AccountSection key={`name:${user.fullName}`} user={user} />
      <LanguageSection key={`locale:${user.locale}`} user={user} />
      <PasswordSection />
      <Section
        id="profile-two-step"
        icon={<IconShieldHalf size={20} aria-hidden />}
        title={t('profile.twoStep.title')}
        description={t('profile.twoStep.description')}
      >
        <TwoStepContent />
      </Section>
      <Section
        id="profile-passkeys"
        icon={<IconFingerprint size={20} aria-hidden />}
        title={t('profile.passkeys.title')}
        description={t('profile.passkeys.description')}
      >
        <PasskeysContent />
      </Section>
      <NotificationsSection key={`notifications:${JSON.stringify(user.notifications)}`} user={user} />
    </Stack>
  );
}
