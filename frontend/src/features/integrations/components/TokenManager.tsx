import { Badge, Button, Card, Code, Group, Loader, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { IconKey, IconPlus, IconTrash } from '@tabler/icons-react';
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiToken, CreatedApiToken } from '@/api/generated/model';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { StackedTable } from '@/components/data/StackedTable';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { useListParams } from '@/lib/list-params';
import { notify } from '@/lib/notify';
import { type TokenOwner, useRevokeToken, useTokenList } from '../api';
import { SCOPE_AREAS, type ScopeArea, parseScope } from '../scopes';
import { confirmRevokeToken } from './token-confirmations';
import { TokenCreateDialog } from './TokenCreateDialog';
import classes from './TokenManager.module.css';
import { TokenSecretDialog } from './TokenSecretDialog';

// Never cut a badge short (a narrow column would truncate it).
const BADGE_STYLE = { textTransform: 'none', minWidth: 'max-content' } as const;

/**
 * A read each kind of token may make, to try a new one with: a person's token reads its owner's
 * account whatever its scopes; a service credential is no person, so it reads what one of its
 * scopes opens (none for the areas without a read of their own yet).
 */
function examplePath(owner: TokenOwner, scopes: readonly string[]): string | null {
  if (owner.kind === 'personal') return '/api/v1/auth/me';
  const enterprise = `/api/v1/enterprises/${owner.enterpriseId}`;
  const reads: Partial<Record<ScopeArea, string>> = {
    enterprises: enterprise,
    users: '/api/v1/users',
    reports: `${enterprise}/reports`,
    dashboards: '/api/v1/dashboard/ceo',
    monitoring: '/api/v1/monitoring/sessions',
    scim: '/api/v1/scim/v2/Users',
  };
  const areas = new Set(scopes.map((scope) => parseScope(scope)?.area));
  const area = SCOPE_AREAS.find((candidate) => areas.has(candidate) && reads[candidate]);
  return area ? reads[area]! : null;
}

/** The grid's order (the server sorts them by name); scopes this client does not know come last. */
const byArea = (scope: string) => {
  const known = parseScope(scope);
  return known ? SCOPE_AREAS.indexOf(known.area) : SCOPE_AREAS.length;
};

function ScopeBadges({ scopes }: { scopes: readonly string[] }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} wrap="wrap">
      {[...scopes]
        .sort((a, b) => byArea(a) - byArea(b))
        .map((scope) => {
          const known = parseScope(scope);
          return (
            <Badge key={scope} variant="light" color={known?.level === 'write' ? 'orange' : 'blue'} style={BADGE_STYLE}>
              {known
                ? t('apiTokens.scopes.badge', { area: t(`apiTokens.scopes.areas.${known.area}`), level: t(`apiTokens.scopes.levels.${known.level}`) })
                : scope}
            </Badge>
          );
        })}
    </Group>
  );
}

/**
 * A list of live tokens with their creation and revocation: the caller's personal access tokens,
 * or an enterprise's service credentials (`owner`). The page is in the URL (`?page=`). A new
 * token's secret is shown once, in a dialog, and forgotten when it closes.
 */
export function TokenManager({ owner }: { owner: TokenOwner }) {
  const { t } = useTranslation();
  const format = useFormat();
  const headingId = useId();
  const list = useListParams([] as const);
  const tokens = useTokenList(owner, list.page);
  const revoke = useRevokeToken(owner);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const [showingSecret, setShowingSecret] = useState(false);
  const { kind } = owner;

  // A page left empty (its last token revoked, or a hand-edited URL): go to the last one.
  const lastPage = tokens.data ? Math.max(1, Math.ceil(tokens.data.total / tokens.data.pageSize)) : 1;
  const pastTheEnd = tokens.data !== undefined && !tokens.isPlaceholderData && tokens.data.items.length === 0 && list.page > lastPage;
  const { setPage } = list;
  useEffect(() => {
    if (pastTheEnd) setPage(lastPage);
  }, [pastTheEnd, lastPage, setPage]);

  const askRevoke = (token: ApiToken) =>
    confirmRevokeToken(token, t, () =>
      revoke.mutate(token.id, {
        onSuccess: () => notify.success(`apiToken.revoke:${token.id}`, t('apiTokens.revoke.success', { name: token.name })),
        onError: (error) => notify.failure(`apiToken.revoke:${token.id}`, t('apiTokens.revoke.failed'), errorMessage(error, t)),
      }),
    );

  const body = () => {
    if (tokens.isPending) return <TableSkeleton rows={3} />;
    if (tokens.isError) return <QueryError error={tokens.error} onRetry={() => void tokens.refetch()} retrying={tokens.isFetching} />;
    const { items, total, pageSize } = tokens.data;
    if (items.length === 0) {
      return <EmptyMessage icon={<IconKey size={32} aria-hidden />} title={t(`apiTokens.${kind}.empty`)} description={t(`apiTokens.${kind}.emptyHint`)} />;
    }
    return (
      <Stack gap="md">
        <StackedTable verticalSpacing="sm" aria-busy={tokens.isPlaceholderData} className={classes.tokens}>
          <VisuallyHidden component="caption">{t(`apiTokens.${kind}.caption`)}</VisuallyHidden>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('apiTokens.fields.name')}</Table.Th>
              <Table.Th scope="col">{t('apiTokens.fields.scopes')}</Table.Th>
              <Table.Th scope="col">{t('apiTokens.fields.createdAt')}</Table.Th>
              <Table.Th scope="col">{t('apiTokens.fields.expiresAt')}</Table.Th>
              <Table.Th scope="col">{t('apiTokens.fields.lastUsedAt')}</Table.Th>
              <Table.Th scope="col">
                <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((token) => (
              <Table.Tr key={token.id} data-testid="token-row">
                <Table.Td data-title>
                  <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                    {token.name}
                  </Text>
                  <Code data-testid="token-prefix">{`${token.prefix}…`}</Code>
                </Table.Td>
                <Table.Td data-label={t('apiTokens.fields.scopes')}>
                  <ScopeBadges scopes={token.scopes} />
                </Table.Td>
                <Table.Td data-label={t('apiTokens.fields.createdAt')} className={classes.date}>
                  {format.date(token.createdAt)}
                </Table.Td>
                <Table.Td data-label={t('apiTokens.fields.expiresAt')} className={classes.date}>
                  {format.date(token.expiresAt)}
                </Table.Td>
                <Table.Td data-label={t('apiTokens.fields.lastUsedAt')}>
                  {token.lastUsedAt ? (
                    format.dateTime(token.lastUsedAt)
                  ) : (
                    <Text span size="sm" c="dimmed">
                      {t('apiTokens.neverUsed')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="end" data-actions>
                  <Button
                    variant="subtle"
                    color="red"
                    size="xs"
                    leftSection={<IconTrash size={14} aria-hidden />}
                    aria-label={t('apiTokens.revoke.label', { name: token.name })}
                    onClick={() => askRevoke(token)}
                  >
                    {t('apiTokens.revoke.action')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </StackedTable>
        <ListPagination page={list.page} pageSize={pageSize} total={total} onChange={list.setPage} label={t(`apiTokens.${kind}.pages`)} />
      </Stack>
    );
  };

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby={headingId}>
      <Stack gap="md">
        <Group justify="space-between" gap="sm">
          <Group gap="sm">
            <Title order={2} fz="lg" id={headingId}>
              {t(`apiTokens.${kind}.listTitle`)}
            </Title>
            {tokens.isFetching && !tokens.isPending && <Loader size="xs" role="status" aria-label={t('app.loading')} />}
          </Group>
          <Button leftSection={<IconPlus size={18} aria-hidden />} onClick={() => setCreating(true)}>
            {t(`apiTokens.${kind}.create`)}
          </Button>
        </Group>
        {body()}
      </Stack>
      <TokenCreateDialog
        owner={owner}
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setCreated(token);
          setShowingSecret(true);
        }}
      />
      <TokenSecretDialog
        token={created}
        opened={showingSecret}
        examplePath={created ? examplePath(owner, created.scopes) : null}
        onClose={() => setShowingSecret(false)}
        onClosed={() => setCreated(null)}
      />
    </Card>
  );
}
