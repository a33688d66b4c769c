import { Loader, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

export type SearchOption = { value: string; label: string };

/** How long typing pauses before the server is asked. */
export const SEARCH_DEBOUNCE_MS = 250;

type SearchSelectProps = {
  label: string;
  /** Shown when nothing is chosen. */
  placeholder: string;
  value: string | null;
  /** The chosen option's name when it is not among `options` (chosen earlier, or in the URL). */
  selectedLabel?: string;
  onChange: (value: string | null) => void;
  /** What the server found for the latest query. */
  options: SearchOption[];
  /** The server is being asked. */
  loading: boolean;
  /** The text typed, trimmed, after a pause; '' when the input shows the chosen option. */
  onQueryChange: (query: string) => void;
  /** Said when the server found nothing. */
  noMatch: string;
  description?: string;
  error?: string;
  w?: number;
};

/**
 * A choice among more options than a list can hold: typing searches on the server (after a
 * pause), which answers the first matches. The server's matches are shown as they come, not
 * filtered again here (it may match on more than the label, such as an e-mail).
 */
export function SearchSelect({
  label,
  placeholder,
  value,
  selectedLabel,
  onChange,
  options,
  loading,
  onQueryChange,
  noMatch,
  description,
  error,
  w,
}: SearchSelectProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  // The name of the option chosen here, kept when a later search no longer finds it.
  const [chosen, setChosen] = useState<SearchOption | null>(null);
  const current = value ? (options.find((option) => option.value === value) ?? (chosen?.value === value ? chosen : null)) : null;
  const currentLabel = current?.label ?? (value ? selectedLabel : undefined);
  // Once an option is chosen the input shows its name: that is not a search.
  const typed = currentLabel !== undefined && search === currentLabel ? '' : search.trim();
  const [query] = useDebouncedValue(typed, SEARCH_DEBOUNCE_MS);
  // The chosen option is offered (and named in the input) unless another search is under way.
  const data = value && currentLabel && !typed && !options.some((option) => option.value === value) ? [{ value, label: currentLabel }, ...options] : options;
  useEffect(() => onQueryChange(query), [query, onQueryChange]);

  return (
    <Select
      label={label}
      placeholder={placeholder}
      data={data}
      value={value}
      onChange={(next, option) => {
        setChosen(option ?? null);
        onChange(next);
      }}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options: all }) => all}
      clearable
      rightSection={loading ? <Loader size="xs" role="status" aria-label={t('app.loading')} /> : undefined}
      clearSectionMode="both"
      nothingFoundMessage={loading ? t('app.loading') : noMatch}
      description={description}
      error={error}
      w={w}
    />
  );
}
