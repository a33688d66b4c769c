import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useListEnterprises } from '@/api/generated/enterprises/enterprises';
import { useListUsers } from '@/api/generated/users/users';
import { errorMessage } from '@/lib/errors';

// The monitoring filters' choices, searched on the server as the user types (components/forms/SearchSelect.tsx).

/** How many matches a filter's search offers (typing narrows them). */
const CHOICES_PAGE_SIZE = 20;

/** GET /users?q=: the user filter's choices, searched on the server (a CEO gets their enterprise's only). */
export function useUserChoices(enterpriseId: string | undefined) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const query = useListUsers(
    { enterpriseId, q: q || undefined, page: 1, pageSize: CHOICES_PAGE_SIZE },
    { query: { placeholderData: keepPreviousData, staleTime: 60_000 } },
  );
  return {
    options: (query.data?.items ?? []).map((user) => ({ value: user.id, label: user.fullName })),
    loading: query.isFetching,
    onQueryChange: setQ,
    error: query.isError ? errorMessage(query.error, t) : undefined,
  };
}

/** GET /enterprises?q=: the platform admin's enterprise filter's choices, searched on the server. */
export function useEnterpriseChoices(enabled: boolean) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const query = useListEnterprises(
    { q: q || undefined, page: 1, pageSize: CHOICES_PAGE_SIZE },
    { query: { enabled, placeholderData: keepPreviousData, staleTime: 60_000 } },
  );
  return {
    options: (query.data?.items ?? []).map((enterprise) => ({ value: enterprise.id, label: enterprise.name })),
    loading: query.isFetching,
    onQueryChange: setQ,
    error: query.isError ? errorMessage(query.error, t) : undefined,
  };
}
