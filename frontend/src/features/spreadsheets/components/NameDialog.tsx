import { Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { ParseKeys } from 'i18next';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { DialogActions } from '@/components/DialogActions';
import { useFieldProps } from '@/lib/forms';
import { all, rules } from '@/lib/validation';

/** The longest name the server takes (characters). */
export const MAX_NAME = 200;

type NameDialogProps = {
  opened: boolean;
  title: string;
  label: string;
  initialName: string;
  submitLabel: string;
  saving: boolean;
  /** The server (or the engine) refused the name: an i18n key. */
  error?: ParseKeys | null;
  maxLength?: number;
  onClose: () => void;
  onSubmit: (name: string) => void;
};

/** Asks for a name (a new or renamed spreadsheet, a sheet): required, and not too long. */
export function NameDialog({ opened, title, onClose, ...form }: NameDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered closeButtonProps={{ 'aria-label': t('common.close') }}>
      {opened && <NameForm onClose={onClose} {...form} />}
    </Modal>
  );
}

function NameForm({ label, initialName, submitLabel, saving, error, maxLength = MAX_NAME, onClose, onSubmit }: Omit<NameDialogProps, 'opened' | 'title'>) {
  const form = useForm({
    mode: 'controlled',
    initialValues: { name: initialName },
    validate: { name: all(rules.required, rules.maxLength(maxLength)) },
  });
  const field = useFieldProps(form);
  const { setFieldError } = form;
  useEffect(() => {
    if (error) setFieldError('name', error);
  }, [error, setFieldError]);

  return (
    <form noValidate onSubmit={form.onSubmit(({ name }) => onSubmit(name.trim()))}>
      <Stack gap="md">
        <TextInput label={label} withAsterisk data-autofocus {...field('name')} />
        <DialogActions onCancel={onClose} submitLabel={submitLabel} saving={saving} />
      </Stack>
    </form>
  );
}
