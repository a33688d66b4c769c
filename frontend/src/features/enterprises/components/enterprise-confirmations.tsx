import { List, Stack, Text } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import type { TFunction } from 'i18next';
import type { Enterprise } from '@/api/generated/model';

/** Asks before deleting: names the enterprise, says it is final and what goes with it (SPEC §8). */
export function confirmDeleteEnterprise(enterprise: Pick<Enterprise, 'name'>, t: TFunction, onConfirm: () => void) {
  openConfirmModal({
    title: t('enterprises.delete.title'),
    children: (
      <Stack gap="xs" data-testid="delete-enterprise-confirmation">
        <Text size="sm">{t('enterprises.delete.question', { name: enterprise.name })}</Text>
        <Text size="sm" fw={600}>
          {t('enterprises.delete.irreversible')}
        </Text>
        <Text size="sm">{t('enterprises.delete.dataRemoved')}</Text>
        <List size="sm" withPadding>
          <List.Item>{t('enterprises.delete.departments')}</List.Item>
          <List.Item>{t('enterprises.delete.users')}</List.Item>
          <List.Item>{t('enterprises.delete.reports')}</List.Item>
        </List>
      </Stack>
    ),
    labels: { confirm: t('enterprises.delete.confirm'), cancel: t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm,
  });
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
