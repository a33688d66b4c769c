import { Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import type { ParseKeys } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchInput } from '@/components/data/SearchInput';
import { DateField } from '@/components/forms/DateField';
import { useCurrentUser } from '@/lib/session';
import { ACTION_AREAS, ACTION_GROUPS, actionParts, isActionArea } from '../actions';
import { type FilterKey, type FilterValues, dateRange, isId } from '../filters';

type Option = { value: string; label: string };

type AuditFiltersProps = {
  values: FilterValues;
  update: (patch: Partial<Record<FilterKey, string | null>>) => void;
  /** The platform admin's enterprise filter; absent for a CEO. */
  enterprises?: { options: Option[]; loading: boolean; partial: boolean; error?: string };
  filtered: boolean;
  onClear: () => void;
};

type IdFilterProps = { label: string; placeholder: string; value: string; onChange: (value: string) => void };

/**
 * An id to filter by (a user's, a report's…): applied once typing pauses and it is a whole id, or
 * emptied; what is not an id says so once the field is left, and is not sent.
 */
function IdFilter({ label, placeholder, value, onChange }: IdFilterProps) {
  const { t } = useTranslation();
  const [text, setText] = useState(value);
  const [left, setLeft] = useState(false);
  const apply = useDebouncedCallback((next: string) => {
    const trimmed = next.trim();
    if (trimmed === '' || isId(trimmed)) onChange(trimmed.toLowerCase());
  }, 400);

  // Follow changes from outside (a row's "only this target", "clear filters", the back button).
  const [seenValue, setSeenValue] = useState(value);
  if (value !== seenValue) {
    setSeenValue(value);
    if (text.trim().toLowerCase() !== value) setText(value);
  }
  const invalid = text.trim() !== '' && !isId(text);

  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      value={text}
      onChange={(event) => {
        setText(event.currentTarget.value);
        setLeft(false);
        apply(event.currentTarget.value);
      }}
      onBlur={() => {
        setLeft(true);
        apply.flush();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          setLeft(true);
          apply.flush();
        }
      }}
      error={invalid && left ? t('audit.filters.idInvalid') : undefined}
      spellCheck={false}
      autoComplete="off"
      w={330}
      maw="100%"
    />
  );
}

/** The action filter's choices: per area, all of its actions, then each one. The platform's own
 * entries are the admin's alone, so a CEO is not offered them. */
function useActionOptions(current: string) {
  const { t } = useTranslation();
  const admin = useCurrentUser().role === 'PlatformAdmin';
  const areas = ACTION_AREAS.filter((area) => admin || area !== 'platform');
  const groups: { group: string; items: Option[] }[] = areas.map((area) => ({
    group: t(`audit.areas.${area}`),
    items: [
      { value: area, label: t(`audit.areaAll.${area}`) },
      ...ACTION_GROUPS[area].map((action) => {
        const { verb } = actionParts(action)!;
        return { value: action, label: t(`audit.actions.${area}.${verb}` as ParseKeys) };
      }),
    ],
  }));
  // An action this client does not know (from a link, or a newer server) is still shown as chosen.
  if (current && !isActionArea(current) && !actionParts(current))
    groups.push({ group: t('audit.filters.action'), items: [{ value: current, label: current }] });
  return groups;
}

/** What the audit log shows: an action or a whole area, an actor, a target, the days, a search and (admin) an enterprise. */
export function AuditFilters({ values, update, enterprises, filtered, onClear }: AuditFiltersProps) {
  const { t } = useTranslation();
  const { inverted } = dateRange(values);
  const actionOptions = useActionOptions(values.action);

  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="md" wrap="wrap">
        <Select
          label={t('audit.filters.action')}
          placeholder={t('audit.filters.allActions')}
          data={actionOptions}
          value={values.action || null}
          onChange={(action) => update({ action })}
          searchable
          clearable
          nothingFoundMessage={t('audit.filters.noActionMatch')}
          comboboxProps={{ withinPortal: true }}
          maxDropdownHeight={360}
          w={300}
          maw="100%"
        />
        <SearchInput value={values.q} onSearch={(q) => update({ q })} label={t('audit.filters.search')} placeholder={t('audit.filters.searchPlaceholder')} />
      </Group>
      <Group align="flex-start" gap="md" wrap="wrap">
        <IdFilter
          label={t('audit.filters.actor')}
          placeholder={t('audit.filters.actorPlaceholder')}
          value={values.actor}
          onChange={(actor) => update({ actor })}
        />
        <IdFilter
          label={t('audit.filters.target')}
          placeholder={t('audit.filters.targetPlaceholder')}
          value={values.target}
          onChange={(target) => update({ target })}
        />
        <DateField label={t('audit.filters.from')} value={values.from} max={values.to} onChange={(from) => update({ from })} clearable w={180} />
        <DateField
          label={t('audit.filters.to')}
          value={values.to}
          min={values.from}
          onChange={(to) => update({ to })}
          error={inverted ? t('audit.filters.invertedRange') : undefined}
          clearable
          w={180}
        />
        {enterprises && (
          <Select
            label={t('audit.filters.enterprise')}
            placeholder={enterprises.loading ? t('app.loading') : t('audit.filters.allEnterprises')}
            data={enterprises.options}
            value={values.enterpriseId || null}
            onChange={(enterpriseId) => update({ enterpriseId })}
            searchable
            clearable
            nothingFoundMessage={t('audit.filters.noEnterpriseMatch')}
            description={enterprises.partial ? t('audit.filters.enterprisesPartial', { count: enterprises.options.length }) : undefined}
            error={enterprises.error}
            w={260}
            maw="100%"
          />
        )}
      </Group>
      {filtered && (
        <Group>
          <Button variant="subtle" size="xs" onClick={onClear}>
            {t('common.clearFilters')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
