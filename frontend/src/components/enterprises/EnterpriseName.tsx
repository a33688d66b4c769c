import { Anchor, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useGetEnterprise } from '@/api/generated/enterprises/enterprises';
import { href } from '@/lib/paths';

type EnterpriseNameProps = { id: string | null | undefined; names: ReadonlyMap<string, string> };

/**
 * A user's enterprise, linked to its detail. Names come from the enterprise list already loaded
 * for the filter; one beyond it is looked up on its own.
 */
export function EnterpriseName({ id, names }: EnterpriseNameProps) {
  const { t } = useTranslation();
  if (!id) {
    return (
      <Text span size="sm" c="dimmed">
        {t('users.platformWide')}
      </Text>
    );
  }
  const known = names.get(id);
  return known !== undefined ? <EnterpriseLink id={id} name={known} /> : <LookedUpEnterpriseName id={id} />;
}

function LookedUpEnterpriseName({ id }: { id: string }) {
  const { t } = useTranslation();
  const enterprise = useGetEnterprise(id, { query: { staleTime: 60_000 } });
  return <EnterpriseLink id={id} name={enterprise.data?.name ?? t('app.loading')} />;
}

function EnterpriseLink({ id, name }: { id: string; name: string }) {
  return (
    <Anchor component={Link} to={href('adminEnterprise', { id })} size="sm">
      {name}
    </Anchor>
  );
}
