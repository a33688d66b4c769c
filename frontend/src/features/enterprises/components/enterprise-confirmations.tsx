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

/**
 * Asks before deleting: names the enterprise, says it is final and what goes with it (SPEC §8),
 * and asks for its name to be typed: names are unique ignoring case and accents, and typing the
 * exact name makes sure it is this one. The red button stays disabled until the name matches.
 */
export function confirmDeleteEnterprise(enterprise: Pick<Enterprise, 'name'>, t: TFunction, onConfirm: () => void) {
  const modalId = `delete-enterprise-${Math.random().toString(36).slice(2)}`;
  modals.open({
    modalId,
    title: t('enterprises.delete.title'),
    children: (
      <DeleteEnterpriseConfirmation
        name={enterprise.name}
        onCancel={() => modals.close(modalId)}
        onConfirm={() => {
          modals.close(modalId);
          onConfirm();
        }}
      />
    ),
  });
}

type DeleteEnterpriseConfirmationProps = { name: string; onConfirm: () => void; onCancel: () => void };

function DeleteEnterpriseConfirmation({ name, onConfirm, onCancel }: DeleteEnterpriseConfirmationProps) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState('');
  const matches = typedNameMatches(typed, name);
  // Enter in the field submits only once the name matches.
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (matches) onConfirm();
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="xs" data-testid="delete-enterprise-confirmation">
        <Text size="sm">{t('enterprises.delete.question', { name })}</Text>
        <Text size="sm" fw={600}>
          {t('enterprises.delete.irreversible')}
        </Text>
        <Text size="sm">{t('enterprises.delete.dataRemoved')}</Text>
        <List size="sm" withPadding>
          <List.Item>{t('enterprises.delete.departments')}</List.Item>
          <List.Item>{t('enterprises.delete.users')}</List.Item>
          <List.Item>{t('enterprises.delete.reports')}</List.Item>
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
          data-testid="delete-enterprise-name"
        />
      </Stack>
      <Group justify="flex-end" gap="sm" mt="md">
        <Button variant="default" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" color="red" disabled={!matches}>
          {t('enterprises.delete.confirm')}
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
