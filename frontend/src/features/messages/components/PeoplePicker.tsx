import { Checkbox, Skeleton, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useListMessagingUsers } from '@/api/generated/messaging/messaging';
import type { Correspondent } from '@/api/generated/model';
import { QueryError } from '@/components/data/QueryError';
import classes from './messages.module.css';

/** People offered per search. */
const PICKER_PAGE = 20;

type PickerProps = {
  /** Left out (those already in the conversation). */
  exclude?: string[];
} & (
  | { mode: 'single'; onPick: (person: Correspondent) => void; busy?: boolean }
  | { mode: 'multi'; selected: Correspondent[]; onChange: (people: Correspondent[]) => void }
);

/**
 * Whom the user may write to (GET /messaging/users), searched by name or e-mail. Someone who has
 * never opened the messenger has no keys yet: nothing can be encrypted for them, so they are
 * shown, disabled, with the reason.
 */
export function PeoplePicker(props: PickerProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const people = useListMessagingUsers({ q: q || undefined, page: 1, pageSize: PICKER_PAGE });
  const listId = useId();
  const exclude = new Set(props.exclude ?? []);
  const items = (people.data?.items ?? []).filter((person) => !exclude.has(person.id));

  const body = () => {
    if (people.isPending) return <Skeleton h={120} />;
    if (people.isError) return <QueryError error={people.error} onRetry={() => void people.refetch()} retrying={people.isFetching} />;
    if (items.length === 0) return <Text c="dimmed">{q ? t('messenger.picker.noMatch') : t('messenger.picker.nobody')}</Text>;
    return (
      <Stack gap={4} component="ul" className={classes.plainList} id={listId} aria-label={t('messenger.picker.results')}>
        {items.map((person) => {
          const keyless = person.keyVersion == null;
          const detail = keyless ? t('messenger.picker.noKeys') : person.email;
          if (props.mode === 'multi') {
            const checked = props.selected.some((p) => p.id === person.id);
            return (
              <li key={person.id}>
                <Checkbox
                  className={classes.pickerRow}
                  label={person.fullName}
                  description={detail}
                  disabled={keyless}
                  checked={checked}
                  onChange={(event) =>
                    props.onChange(event.currentTarget.checked ? [...props.selected, person] : props.selected.filter((p) => p.id !== person.id))
                  }
                />
              </li>
            );
          }
          return (
            <li key={person.id}>
              <UnstyledButton
                className={classes.pickerButton}
                disabled={keyless || props.busy}
                onClick={() => props.onPick(person)}
                data-keyless={keyless || undefined}
              >
                <Text fw={500}>{person.fullName}</Text>
                <Text size="sm" c={keyless ? undefined : 'dimmed'} fs={keyless ? 'italic' : undefined}>
                  {detail}
                </Text>
              </UnstyledButton>
            </li>
          );
        })}
      </Stack>
    );
  };

  return (
    <Stack gap="sm">
      <TextInput
        label={t('messenger.picker.search')}
        placeholder={t('messenger.picker.searchPlaceholder')}
        leftSection={<IconSearch size={16} aria-hidden />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        maxLength={200}
        data-autofocus
      />
      {people.data && people.data.total > PICKER_PAGE && (
        <Text size="sm" c="dimmed">
          {t('messenger.picker.refine', { count: people.data.total })}
        </Text>
      )}
      <div className={classes.pickerList}>{body()}</div>
    </Stack>
  );
}
