import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

type DialogActionsProps = {
  onCancel: () => void;
  /** The submit button's text; "Save" by default. */
  submitLabel?: string;
  saving?: boolean;
  disabled?: boolean;
};

/** The Cancel / submit buttons at the foot of a dialog's form. */
export function DialogActions({ onCancel, submitLabel, saving = false, disabled = false }: DialogActionsProps) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end" gap="sm">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={saving} disabled={disabled}>
        {submitLabel ?? t('common.save')}
      </Button>
    </Group>
  );
}
