import { Alert, Button, Card, Checkbox, Group, Loader, Radio, Stack, Text, Title } from '@mantine/core';
import { IconShield } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { type FormEvent, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EnterpriseSecurityPolicy, PlatformSecurityPolicy, Role } from '@/api/generated/model';
import { QueryError } from '@/components/data/QueryError';
import { ALL_ROLES, TENANT_ROLES } from '@/lib/authorization';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';
import {
  useEnterpriseSecurityPolicy,
  usePlatformSecurityPolicy,
  useUpdateEnterpriseSecurityPolicyMutation,
  useUpdatePlatformSecurityPolicyMutation,
} from './policy-api';

/** The roles in the interface's order. */
const ordered = (roles: readonly Role[]) => ALL_ROLES.filter((role) => roles.includes(role));

/** "CEOs, department heads" or "no one". */
export function rolesSentence(roles: readonly Role[], t: TFunction): string {
  const names = ordered(roles).map((role) => t(`security.roles.${role}`));
  return names.length ? names.join(', ') : t('security.nobody');
}

function PolicyCard({ id, description, children }: { id: string; description: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={id} data-testid={id}>
      <Stack gap="md">
        <Stack gap={4}>
          <Group gap="xs" wrap="nowrap">
            <IconShield size={20} aria-hidden />
            <Title order={2} fz="lg" id={id}>
              {t('security.title')}
            </Title>
          </Group>
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        </Stack>
        {children}
      </Stack>
    </Card>
  );
}

function RoleChecks({ choices, value, onChange }: { choices: readonly Role[]; value: Role[]; onChange: (roles: Role[]) => void }) {
  const { t } = useTranslation();
  return (
    <Checkbox.Group value={value} onChange={(next) => onChange(ordered(next as Role[]))} label={t('security.requireFor')}>
      <Stack gap="xs" mt="xs">
        {choices.map((role) => (
          <Checkbox key={role} value={role} label={t(`security.roles.${role}`)} />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}

function EnterprisePolicyForm({ enterpriseId, policy }: { enterpriseId: string; policy: EnterpriseSecurityPolicy }) {
  const { t } = useTranslation();
  const save = useUpdateEnterpriseSecurityPolicyMutation(enterpriseId);
  const own = policy.mfaRequiredRoles ?? null;
  // The default as it applies here: the tenant roles it names (platform admins are not of an enterprise).
  const platformDefault = policy.platformDefault.filter((role) => TENANT_ROLES.includes(role));
  const [mode, setMode] = useState<'default' | 'own'>(own === null ? 'default' : 'own');
  // An own rule starts from the default's roles.
  const [roles, setRoles] = useState<Role[]>(ordered(own ?? platformDefault));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(mode === 'default' ? null : roles, {
      onSuccess: () => notify.success(`security.enterprise:${enterpriseId}`, t('security.saved')),
      onError: (error) => notify.failure(`security.enterprise:${enterpriseId}`, t('security.failed'), errorMessage(error, t)),
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Radio.Group value={mode} onChange={(value) => setMode(value === 'own' ? 'own' : 'default')} label={t('security.choice')}>
          <Stack gap="sm" mt="xs">
            <Radio value="default" label={t('security.followDefault', { roles: rolesSentence(platformDefault, t) })} />
            <Radio value="own" label={t('security.ownPolicy')} />
          </Stack>
        </Radio.Group>
        {mode === 'own' && <RoleChecks choices={TENANT_ROLES} value={roles} onChange={setRoles} />}
        <Text size="sm" c="dimmed">
          {t('security.effect')}
        </Text>
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {t('security.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** An enterprise's "Security" card: follow the platform's default, or its own list of roles (the admin, or its CEO). */
export function EnterpriseSecurityCard({ enterpriseId }: { enterpriseId: string }) {
  const { t } = useTranslation();
  const policy = useEnterpriseSecurityPolicy(enterpriseId);
  const body = () => {
    if (policy.isPending) return <Loader size="sm" role="status" aria-label={t('app.loading')} />;
    if (policy.isError) return <QueryError error={policy.error} onRetry={() => void policy.refetch()} retrying={policy.isFetching} />;
    // Keyed by what is saved: a save (or another's) shows as the form's new start.
    return <EnterprisePolicyForm key={JSON.stringify(policy.data)} enterpriseId={enterpriseId} policy={policy.data} />;
  };
  return (
    <PolicyCard id="enterprise-security" description={t('security.enterpriseDescription')}>
      {body()}
    </PolicyCard>
  );
}

function PlatformPolicyForm({ policy }: { policy: PlatformSecurityPolicy }) {
  const { t } = useTranslation();
  const save = useUpdatePlatformSecurityPolicyMutation();
  const [roles, setRoles] = useState<Role[]>(ordered(policy.mfaRequiredRoles));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(roles, {
      onSuccess: () => notify.success('security.platform', t('security.saved')),
      onError: (error) => notify.failure('security.platform', t('security.failed'), errorMessage(error, t)),
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <RoleChecks choices={ALL_ROLES} value={roles} onChange={setRoles} />
        <Alert variant="light" color="blue">
          {t('security.platformNote')}
        </Alert>
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {t('security.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The platform's policy (the admin's): its own admins, and the default of enterprises without their own. */
export function PlatformSecurityCard() {
  const { t } = useTranslation();
  const policy = usePlatformSecurityPolicy();
  const body = () => {
    if (policy.isPending) return <Loader size="sm" role="status" aria-label={t('app.loading')} />;
    if (policy.isError) return <QueryError error={policy.error} onRetry={() => void policy.refetch()} retrying={policy.isFetching} />;
    return <PlatformPolicyForm key={JSON.stringify(policy.data)} policy={policy.data} />;
  };
  return (
    <PolicyCard id="platform-security" description={t('security.platformDescription')}>
      {body()}
    </PolicyCard>
  );
}
