import { Checkbox, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchInput } from '@/components/data/SearchInput';
import { DateField } from '@/components/forms/DateField';
import { SearchSelect, type SearchOption } from '@/components/forms/SearchSelect';
import { FLAGGED_ONLY, type FilterKey, type FilterValues, SHOW_ALL, dateRange } from '../filters';

/** A filter that searches its options on the server (`filter-choices.ts`). */
export type ServerChoices = {
  options: SearchOption[];
  loading: boolean;
  onQueryChange: (query: string) => void;
  /** The chosen one's name when the search did not bring it. */
  selectedLabel?: string;
  error?: string;
};

type SessionFiltersProps = {
  values: FilterValues;
  update: (patch: Partial<Record<FilterKey, string | null>>) => void;
  users: ServerChoices;
  /** The platform admin's enterprise filter; absent for a CEO. */
  enterprises?: ServerChoices;
};

/** Live or all, flagged only, the days a session was active in, a search, a user and (admin) an enterprise. */
export function SessionFilters({ values, update, users, enterprises }: SessionFiltersProps) {
  const { t } = useTranslation();
  const showLabel = useId();
  const { inverted } = dateRange(values);

  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="md" wrap="wrap">
        <Stack gap={4}>
          <Text size="sm" fw={500} id={showLabel}>
            {t('monitoring.filters.show')}
          </Text>
          <SegmentedControl
            aria-labelledby={showLabel}
            value={values.show === SHOW_ALL ? SHOW_ALL : 'active'}
            onChange={(value) => update({ show: value === SHOW_ALL ? SHOW_ALL : null })}
            data={[
              { value: 'active', label: t('monitoring.filters.activeOnly') },
              { value: SHOW_ALL, label: t('monitoring.filters.all') },
            ]}
          />
        </Stack>
        <SearchInput
          value={values.q}
          onSearch={(q) => update({ q })}
          label={t('monitoring.filters.search')}
          placeholder={t('monitoring.filters.searchPlaceholder')}
        />
        <Checkbox
          label={t('monitoring.filters.flaggedOnly')}
          checked={values.flagged === FLAGGED_ONLY}
          onChange={(event) => update({ flagged: event.currentTarget.checked ? FLAGGED_ONLY : null })}
          mb={8}
        />
      </Group>
      <Group align="flex-start" gap="md" wrap="wrap">
        <DateField label={t('monitoring.filters.from')} value={values.from} max={values.to} onChange={(from) => update({ from })} clearable w={180} />
        <DateField
          label={t('monitoring.filters.to')}
          value={values.to}
          min={values.from}
          onChange={(to) => update({ to })}
          error={inverted ? t('monitoring.filters.invertedRange') : undefined}
          clearable
          w={180}
        />
        <SearchSelect
          label={t('monitoring.fields.user')}
          placeholder={t('monitoring.filters.allUsers')}
          value={values.userId || null}
          onChange={(value) => update({ userId: value })}
          {...users}
          noMatch={t('monitoring.filters.noUserMatch')}
          w={260}
        />
        {enterprises && (
          <SearchSelect
            label={t('monitoring.fields.enterprise')}
            placeholder={t('monitoring.filters.allEnterprises')}
            value={values.enterpriseId || null}
            onChange={(value) => update({ enterpriseId: value, userId: null })}
            {...enterprises}
            noMatch={t('monitoring.filters.noEnterpriseMatch')}
            w={260}
          />
        )}
      </Group>
    </Stack>
  );
}
