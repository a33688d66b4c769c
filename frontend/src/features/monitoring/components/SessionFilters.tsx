import { Checkbox, Group, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchInput } from '@/components/data/SearchInput';
import { DateField } from '@/components/forms/DateField';
import { FLAGGED_ONLY, type FilterKey, type FilterValues, SHOW_ALL, dateRange } from '../filters';

type Option = { value: string; label: string };

type SessionFiltersProps = {
  values: FilterValues;
  update: (patch: Partial<Record<FilterKey, string | null>>) => void;
  users: { options: Option[]; loading: boolean };
  /** The platform admin's enterprise filter; absent for a CEO. */
  enterprises?: { options: Option[]; loading: boolean; partial: boolean; error?: string };
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
        <Select
          label={t('monitoring.fields.user')}
          placeholder={users.loading ? t('app.loading') : t('monitoring.filters.allUsers')}
          data={users.options}
          value={values.userId || null}
          onChange={(value) => update({ userId: value })}
          searchable
          clearable
          nothingFoundMessage={t('monitoring.filters.noUserMatch')}
          w={260}
        />
        {enterprises && (
          <Select
            label={t('monitoring.fields.enterprise')}
            placeholder={enterprises.loading ? t('app.loading') : t('monitoring.filters.allEnterprises')}
            data={enterprises.options}
            value={values.enterpriseId || null}
            onChange={(value) => update({ enterpriseId: value, userId: null })}
            searchable
            clearable
            nothingFoundMessage={t('monitoring.filters.noEnterpriseMatch')}
            description={enterprises.partial ? t('monitoring.filters.enterprisesPartial', { count: enterprises.options.length }) : undefined}
            error={enterprises.error}
            w={260}
          />
        )}
      </Group>
    </Stack>
  );
}
