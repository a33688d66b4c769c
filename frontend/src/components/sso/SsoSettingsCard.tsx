import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Loader,
  PasswordInput,
  Radio,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconAlertTriangle, IconKey } from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyableCode } from '@/components/CopyableCode';
import { useGetEnterprise } from '@/api/generated/enterprises/enterprises';
import { type SsoSettings, type SsoSettingsChange, SsoProvisioning } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { QueryError } from '@/components/data/QueryError';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { rules } from '@/lib/validation';
import { useDeleteEnterpriseSsoMutation, useEnterpriseSso, useUpdateEnterpriseSsoMutation } from './sso-api';
import { confirmRemoveSso } from './sso-confirmations';
import { SsoDomainProofs } from './SsoDomainProofs';

/** The roles a person single sign-on creates may get (the server refuses the others). */
const DEFAULT_ROLES = ['DepartmentUser', 'DepartmentHead'] as const;
type DefaultRole = (typeof DEFAULT_ROLES)[number];

type Values = {
  issuer: string;
  clientId: string;
  /** Empty: keep the stored one (there must be one). */
  clientSecret: string;
  domains: string[];
  required: boolean;
  provisioning: SsoProvisioning;
  defaultRole: DefaultRole;
  defaultDepartmentId: string | null;
  breakGlassUserId: string | null;
  acceptUnverifiedEmail: boolean;
  requireMfa: boolean;
};
type Field = keyof Values;
/** The fields in the form's order: the first one refused gets the keyboard. */
const FIELDS: readonly Field[] = ['issuer', 'clientId', 'clientSecret', 'domains', 'defaultRole', 'defaultDepartmentId', 'breakGlassUserId'];

/** The server's limit (`SsoSettingsChange.domains`), and what it takes for a domain. */
const MAX_DOMAINS = 20;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const HTTP_URL = /^https?:\/\/[^\s/?#]+\S*$/i;

/** Our words for the server's refusals of these fields, where the generic ones would say too little. */
const FIELD_MESSAGES: Partial<Record<Field, Partial<Record<string, ParseKeys>>>> = {
  domains: { invalid: 'ssoSettings.errors.domainsInvalid' },
  defaultRole: { invalid: 'ssoSettings.errors.defaultRoleInvalid' },
  defaultDepartmentId: { invalid: 'ssoSettings.errors.defaultDepartmentInvalid' },
  breakGlassUserId: { invalid: 'ssoSettings.errors.breakGlassInvalid' },
};

/** "example.com", as the server keeps it: trimmed, without a leading @, lower case; each once. */
const normalizeDomains = (domains: string[]) => [...new Set(domains.map((domain) => domain.trim().replace(/^@/, '').toLowerCase()).filter(Boolean))];

const isDefaultRole = (role: string): role is DefaultRole => (DEFAULT_ROLES as readonly string[]).includes(role);

function initialValues(settings: SsoSettings): Values {
  return {
    issuer: settings.issuer ?? '',
    clientId: settings.clientId ?? '',
    clientSecret: '',
    domains: settings.domains,
    required: settings.required,
    // A new set-up starts with accounts made at the first sign-in, the usual choice.
    provisioning: settings.configured ? settings.provisioning : SsoProvisioning.just_in_time,
    defaultRole: isDefaultRole(settings.defaultRole) ? settings.defaultRole : 'DepartmentUser',
    defaultDepartmentId: settings.defaultDepartmentId ?? null,
    breakGlassUserId: settings.breakGlassUserId ?? null,
    acceptUnverifiedEmail: settings.acceptUnverifiedEmail,
    requireMfa: settings.requireMfa,
  };
}

/** Why the server refused an issuer (openapi.json, `ErrorBody.reason`), in the screen's words. */
const ISSUER_REASONS: Record<string, ParseKeys> = {
  invalid_url: 'ssoSettings.errors.issuerReasons.invalid_url',
  not_https: 'ssoSettings.errors.issuerReasons.not_https',
  unresolvable: 'ssoSettings.errors.issuerReasons.unresolvable',
  private_address: 'ssoSettings.errors.issuerReasons.private_address',
  port_not_allowed: 'ssoSettings.errors.issuerReasons.port_not_allowed',
  untrusted_certificate: 'ssoSettings.errors.issuerReasons.untrusted_certificate',
  no_provider: 'ssoSettings.errors.issuerReasons.no_provider',
  sso_unavailable: 'ssoSettings.errors.issuerReasons.sso_unavailable',
};

/** The server's refusal of an issuer: its reason, and its own (English) words. */
type IssuerRefusal = { reason: string | null; detail: string };

/**
 * The server's refusal of a save, on the form: each field's own words; the issuer's reason in the
 * screen's language, with the server's explanation kept for a "details" disclosure; a domain
 * another enterprise owns on the domains.
 */
function refusalOf(error: unknown): { errors: Partial<Record<Field, ParseKeys>>; issuer: IssuerRefusal | null } {
  const mapped = serverFieldErrors(error, FIELDS);
  let issuer: IssuerRefusal | null = null;
  if (isApiRequestError(error)) {
    for (const [field, code] of Object.entries(error.fields)) {
      const message = FIELD_MESSAGES[field as Field]?.[code];
      if (message) mapped.errors[field as Field] = message;
    }
    if (error.fields.issuer === 'invalid') {
      issuer = { reason: error.reason ?? null, detail: error.serverMessage ?? '' };
      delete mapped.errors.issuer;
    }
    if (error.code === 'conflict' && error.reason === 'sso_domain_taken') mapped.errors.domains = 'ssoSettings.errors.domainTaken';
    if (error.code === 'conflict' && error.reason === 'sso_domain_in_use') mapped.errors.domains = 'ssoSettings.errors.domainInUse';
    if (error.code === 'public_mail_domain') mapped.errors.domains = 'ssoSettings.errors.publicMailDomain';
  }
  return { errors: mapped.errors, issuer };
}

type SsoFormProps = {
  enterpriseId: string;
  settings: SsoSettings;
  /** A set-up given up before its first save. */
  onCancel?: () => void;
};

function SsoForm({ enterpriseId, settings, onCancel }: SsoFormProps) {
  const { t } = useTranslation();
  const save = useUpdateEnterpriseSsoMutation(enterpriseId);
  const remove = useDeleteEnterpriseSsoMutation(enterpriseId);
  const enterprise = useGetEnterprise(enterpriseId);
  // Why the server refused the issuer, in its words (the discovery document could not be read...).
  const [issuerRefusal, setIssuerRefusal] = useState<IssuerRefusal | null>(null);
  const form = useForm<Values>({
    initialValues: initialValues(settings),
    validate: {
      issuer: (value): ParseKeys | null => rules.required(value) ?? (HTTP_URL.test(value.trim()) ? null : 'ssoSettings.errors.issuerInvalid'),
      clientId: rules.required,
      clientSecret: (value): ParseKeys | null => (settings.clientSecretSet ? null : rules.required(value)),
      domains: (value): ParseKeys | null => {
        if (value.length === 0) return 'validation.required';
        return value.length > MAX_DOMAINS || !value.every((domain) => DOMAIN.test(domain)) ? 'ssoSettings.errors.domainsInvalid' : null;
      },
    },
  });
  const fieldProps = useFieldProps(form);
  const values = form.getValues();

  const departments = (enterprise.data?.departments ?? []).map((department) => ({ value: department.id, label: t(`departmentTypes.${department.type}`) }));
  const ceo = enterprise.data?.ceo;
  const breakGlassChoices = ceo ? [{ value: ceo.id, label: `${ceo.fullName} · ${ceo.email}` }] : [];
  // A break-glass account that is no longer this enterprise's CEO still shows, so that it can be changed.
  if (values.breakGlassUserId && !breakGlassChoices.some((choice) => choice.value === values.breakGlassUserId)) {
    breakGlassChoices.push({ value: values.breakGlassUserId, label: values.breakGlassUserId });
  }

  // Required, and no way in without the provider: nobody chosen, or the one saved lacks a second factor.
  let breakGlassWarning: ParseKeys | null = null;
  if (values.required && !values.breakGlassUserId) breakGlassWarning = 'ssoSettings.breakGlassMissing';
  else if (values.required && values.breakGlassUserId === (settings.breakGlassUserId ?? null) && !settings.breakGlassReady) {
    breakGlassWarning = 'ssoSettings.breakGlassNotReady';
  }

  const issuerProps = fieldProps('issuer');
  const issuerError = issuerRefusal !== null ? t(ISSUER_REASONS[issuerRefusal.reason ?? ''] ?? 'ssoSettings.errors.issuerRefused') : issuerProps.error;
  const domainsProps = fieldProps('domains');

  const submit = form.onSubmit(
    (submitted) => {
      const secret = submitted.clientSecret.trim();
      const change: SsoSettingsChange = {
        issuer: submitted.issuer.trim(),
        clientId: submitted.clientId.trim(),
        clientSecret: secret || undefined,
        domains: submitted.domains,
        required: submitted.required,
        provisioning: submitted.provisioning,
        defaultRole: submitted.defaultRole,
        defaultDepartmentId: submitted.defaultDepartmentId ?? undefined,
        breakGlassUserId: submitted.breakGlassUserId ?? undefined,
        acceptUnverifiedEmail: submitted.acceptUnverifiedEmail,
        requireMfa: submitted.requireMfa,
      };
      setIssuerRefusal(null);
      save.mutate(change, {
        onSuccess: () => notify.success(`sso.save:${enterpriseId}`, t('ssoSettings.saved')),
        onError: (error) => {
          const refusal = refusalOf(error);
          // A domain another enterprise has: said in our words (the app's wording of API errors has no such conflict).
          const domains = refusal.errors.domains;
          const conflict =
            domains === 'ssoSettings.errors.domainTaken' || domains === 'ssoSettings.errors.domainInUse' || domains === 'ssoSettings.errors.publicMailDomain';
          notify.failure(`sso.save:${enterpriseId}`, t('ssoSettings.saveFailed'), conflict ? t(domains) : errorMessage(error, t));
          setIssuerRefusal(refusal.issuer);
          form.setErrors(refusal.errors as Record<string, ParseKeys>);
          if (refusal.issuer !== null) form.getInputNode('issuer')?.focus();
          else focusFirstError(form, refusal.errors, FIELDS);
        },
      });
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  const askRemove = () =>
    confirmRemoveSso(settings.domains, t, () =>
      remove.mutate(undefined, {
        onSuccess: () => notify.success(`sso.remove:${enterpriseId}`, t('ssoSettings.removed')),
        onError: (error) => notify.failure(`sso.remove:${enterpriseId}`, t('ssoSettings.removeFailed'), errorMessage(error, t)),
      }),
    );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <TextInput
          {...issuerProps}
          onChange={(event) => {
            issuerProps.onChange(event);
            setIssuerRefusal(null);
          }}
          error={issuerError}
          label={t('ssoSettings.issuer')}
          description={t('ssoSettings.issuerHint')}
          placeholder="https://"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          required
        />
        {issuerRefusal?.detail && (
          // The server's own words, for whoever must fix the provider: English whatever the
          // screen's language, and out of the field's description.
          <Text component="details" size="sm" c="dimmed">
            <summary>{t('ssoSettings.errors.issuerDetails')}</summary>
            <span lang="en">{issuerRefusal.detail}</span>
          </Text>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput {...fieldProps('clientId')} label={t('ssoSettings.clientId')} autoComplete="off" spellCheck={false} required />
          <PasswordInput
            {...fieldProps('clientSecret')}
            label={t('ssoSettings.clientSecret')}
            description={settings.clientSecretSet ? t('ssoSettings.secretStored') : undefined}
            autoComplete="new-password"
            required={!settings.clientSecretSet}
            visibilityToggleButtonProps={{ 'aria-label': t('auth.showPassword') }}
          />
        </SimpleGrid>
        <TagsInput
          {...domainsProps}
          onChange={(domains) => domainsProps.onChange(normalizeDomains(domains))}
          label={t('ssoSettings.domains')}
          description={t('ssoSettings.domainsHint')}
          placeholder={values.domains.length ? undefined : t('ssoSettings.domainsPlaceholder')}
          splitChars={[',', ' ', ';']}
          maxTags={MAX_DOMAINS}
          clearable
          required
        />
        <Switch
          {...form.getInputProps('required', { type: 'checkbox' })}
          label={t('ssoSettings.required')}
          description={t('ssoSettings.requiredHint')}
          // Its name is the label alone (Mantine's label wraps the description too, which is its description).
          aria-label={t('ssoSettings.required')}
          // No on/off words in the track: its empty label box would only overflow it.
          styles={{ trackLabel: { display: 'none' } }}
        />
        <Radio.Group {...form.getInputProps('provisioning')} label={t('ssoSettings.provisioning')}>
          <Stack gap="sm" mt="xs">
            <Radio value={SsoProvisioning.just_in_time} label={t('ssoSettings.provisioningJit')} />
            <Radio value={SsoProvisioning.invitation_only} label={t('ssoSettings.provisioningInvitation')} />
          </Stack>
        </Radio.Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <Select
            {...fieldProps('defaultRole')}
            label={t('ssoSettings.defaultRole')}
            data={DEFAULT_ROLES.map((role) => ({ value: role, label: t(`roles.${role}`) }))}
            allowDeselect={false}
          />
          <Select
            {...fieldProps('defaultDepartmentId')}
            label={t('ssoSettings.defaultDepartment')}
            placeholder={t('ssoSettings.noDepartment')}
            data={departments}
            clearable
          />
        </SimpleGrid>
        <Select
          {...fieldProps('breakGlassUserId')}
          label={t('ssoSettings.breakGlass')}
          description={t('ssoSettings.breakGlassHint')}
          placeholder={t('ssoSettings.noBreakGlass')}
          data={breakGlassChoices}
          clearable
        />
        {breakGlassWarning && (
          <Alert color="orange" variant="light" icon={<IconAlertTriangle aria-hidden />} data-testid="sso-break-glass-warning">
            {t(breakGlassWarning)}
          </Alert>
        )}
        <Switch
          {...form.getInputProps('requireMfa', { type: 'checkbox' })}
          label={t('ssoSettings.requireMfa')}
          description={t('ssoSettings.requireMfaHint')}
          aria-label={t('ssoSettings.requireMfa')}
          styles={{ trackLabel: { display: 'none' } }}
        />
        <Switch
          {...form.getInputProps('acceptUnverifiedEmail', { type: 'checkbox' })}
          label={t('ssoSettings.acceptUnverifiedEmail')}
          description={t('ssoSettings.acceptUnverifiedEmailHint')}
          aria-label={t('ssoSettings.acceptUnverifiedEmail')}
          styles={{ trackLabel: { display: 'none' } }}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            {t('ssoSettings.redirectUri')}
          </Text>
          <Text size="sm" c="dimmed">
            {t('ssoSettings.redirectUriHint')}
          </Text>
          <CopyableCode value={settings.redirectUri} copyLabel={t('ssoSettings.copy')} copiedLabel={t('ssoSettings.copied')} testId="sso-redirect-uri" />
        </Stack>
        <Group justify="flex-end" gap="sm">
          {settings.configured && (
            <Button variant="light" color="red" onClick={askRemove} loading={remove.isPending}>
              {t('ssoSettings.remove')}
            </Button>
          )}
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              {t('common.cancel')}
            </Button>
          )}
          <Button type="submit" loading={save.isPending}>
            {t('ssoSettings.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function SsoCardFrame({ badge, children }: { badge?: ReactNode; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="enterprise-sso" data-testid="enterprise-sso">
      <Stack gap="md">
        <Stack gap={4}>
          <Group gap="xs" wrap="wrap">
            <IconKey size={20} aria-hidden />
            <Title order={2} fz="lg" id="enterprise-sso">
              {t('ssoSettings.title')}
            </Title>
            {badge}
          </Group>
          <Text size="sm" c="dimmed">
            {t('ssoSettings.description')}
          </Text>
        </Stack>
        {children}
      </Stack>
    </Card>
  );
}

/**
 * An enterprise's single sign-on (OpenID Connect), the admin's or its CEO's: set up, changed or
 * removed. Beside the enterprise's "Security" card (EnterpriseSecurityCard).
 */
export function SsoSettingsCard({ enterpriseId }: { enterpriseId: string }) {
  const { t } = useTranslation();
  const sso = useEnterpriseSso(enterpriseId);
  const [settingUp, setSettingUp] = useState(false);
  const settings = sso.data;
  // Removed (here or elsewhere): the next set-up starts from the empty state again.
  const [seenConfigured, setSeenConfigured] = useState(settings?.configured);
  if (settings && settings.configured !== seenConfigured) {
    setSeenConfigured(settings.configured);
    if (!settings.configured) setSettingUp(false);
  }

  const body = () => {
    if (sso.isPending) return <Loader size="sm" role="status" aria-label={t('app.loading')} />;
    if (sso.isError) return <QueryError error={sso.error} onRetry={() => void sso.refetch()} retrying={sso.isFetching} />;
    if (!sso.data.configured && !settingUp) {
      return (
        <Stack gap="sm" align="flex-start" data-testid="sso-not-set-up">
          <Text fw={500}>{t('ssoSettings.notSetUp')}</Text>
          <Text size="sm" c="dimmed">
            {t('ssoSettings.notSetUpHint')}
          </Text>
          <Button variant="light" leftSection={<IconKey size={16} aria-hidden />} onClick={() => setSettingUp(true)}>
            {t('ssoSettings.setUp')}
          </Button>
        </Stack>
      );
    }
    // Keyed by what is saved: a save (or another's) shows as the form's new start.
    return (
      <Stack gap="lg">
        <SsoForm
          key={JSON.stringify(sso.data)}
          enterpriseId={enterpriseId}
          settings={sso.data}
          onCancel={sso.data.configured ? undefined : () => setSettingUp(false)}
        />
        {sso.data.configured && <SsoDomainProofs enterpriseId={enterpriseId} />}
      </Stack>
    );
  };

  const badge = settings?.configured ? (
    <Badge color={settings.required ? 'orange' : 'teal'} variant="light">
      {settings.required ? t('ssoSettings.requiredBadge') : t('ssoSettings.on')}
    </Badge>
  ) : undefined;

  return <SsoCardFrame badge={badge}>{body()}</SsoCardFrame>;
}
