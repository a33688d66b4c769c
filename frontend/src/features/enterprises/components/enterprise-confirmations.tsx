import { Button, Group, List, Stack, Text, TextInput } from '@mantine/core';
import { modals, openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Enterprise } from '@/api/generated/model';

/** Whether the text typed into the delete confirmation is the enterprise's name (trimmed, exact). */
export function typedNameMatches(typed: string, name: string): boolean {
  return typed.trim() !== '' && typed.trim() === name.trim();
}

/** What a typed-name confirmation says: the question, the warnings and what goes. */
type TypedNameTexts = { question: string; notes: string[]; removed: string[]; confirm: string };

function openTypedNameConfirmation(kind: string, title: string, name: string, texts: TypedNameTexts, onConfirm: () => void) {
  const modalId = `${kind}-enterprise-${Math.random().toString(36).slice(2)}`;
  modals.open({
    modalId,
    title,
    children: (
      <TypedNameConfirmation
        kind={kind}
        name={name}
        texts={texts}
        onCancel={() => modals.close(modalId)}
        onConfirm={() => {
          modals.close(modalId);
          onConfirm();
        }}
      />
    ),
  });
}

/**
 * Asks before deleting: names the enterprise, says what its deletion does and that, once its
 * recovery window ends, it is final and every associated datum goes (SPEC §8), and asks for its
 * name to be typed: names are unique ignoring case and accents, and typing the exact name makes
 * sure it is this one. The red button stays disabled until the name matches.
 */
export function confirmDeleteEnterprise(enterprise: Pick<Enterprise, 'name'>, t: TFunction, onConfirm: () => void) {
  openTypedNameConfirmation(
    'delete',
    t('enterprises.delete.title'),
    enterprise.name,
    {
      question: t('enterprises.delete.question', { name: enterprise.name }),
      notes: [t('enterprises.delete.window'), t('enterprises.delete.irreversible'), t('enterprises.delete.exportFirst')],
      removed: [t('enterprises.delete.dataRemoved'), t('enterprises.delete.departments'), t('enterprises.delete.users'), t('enterprises.delete.reports')],
      confirm: t('enterprises.delete.confirm'),
    },
    onConfirm,
  );
}

/** Asks before purging a scheduled deletion now, with the name typed again: nothing comes back. */
export function confirmPurgeEnterprise(enterprise: Pick<Enterprise, 'name'>, date: string, t: TFunction, onConfirm: () => void) {
  openTypedNameConfirmation(
    'purge',
    t('enterprises.purge.title'),
    enterprise.name,
    {
      question: t('enterprises.purge.question', { name: enterprise.name, date }),
      notes: [t('enterprises.purge.irreversible')],
      removed: [
        t('enterprises.purge.dataRemoved'),
        t('enterprises.delete.departments'),
        t('enterprises.delete.users'),
        t('enterprises.delete.reports'),
        t('enterprises.purge.history'),
      ],
      confirm: t('enterprises.purge.confirm'),
    },
    onConfirm,
  );
}

type TypedNameConfirmationProps = { kind: string; name: string; texts: TypedNameTexts; onConfirm: () => void; onCancel: () => void };

function TypedNameConfirmation({ kind, name, texts, onConfirm, onCancel }: TypedNameConfirmationProps) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState('');
  const matches = typedNameMatches(typed, name);
  const [intro, ...items] = texts.removed;
  // Enter in the field submits only once the name matches.
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (matches) onConfirm();
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="xs" data-testid={`${kind}-enterprise-confirmation`}>
        <Text size="sm">{texts.question}</Text>
        {texts.notes.map((note, index) => (
          <Text key={note} size="sm" fw={index === texts.notes.length - 1 ? 600 : undefined}>
            {note}
          </Text>
        ))}
        <Text size="sm">{intro}</Text>
        <List size="sm" withPadding>
          {items.map((item) => (
            <List.Item key={item}>{item}</List.Item>
          ))}
        </List>
        <TextInput
          label={t('enterprises.delete.typeName')}
          description={t('enterprises.delete.typeNameHint', { name })}
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          data-autofocus
          data-testid={`${kind}-enterprise-name`}
        />
      </Stack>
      <Group justify="flex-end" gap="sm" mt="md">
        <Button variant="default" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" color="red" disabled={!matches}>
          {texts.confirm}
        </Button>
      </Group>
    </form>
  );
}

/** Asks before deactivating: everyone in the enterprise is signed out at once. */
export function confirmDeactivateEnterprise(enterprise: Pick<Enterprise, 'name'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('enterprises.deactivate.title'),
    children: <Text size="sm">{t('enterprises.deactivate.body', { name: enterprise.name })}</Text>,
    labels: { confirm: t('enterprises.deactivate.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'orange' },
    onConfirm,
  });
}
