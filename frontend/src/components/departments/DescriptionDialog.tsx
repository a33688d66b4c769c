import { Modal, Stack, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import type { Department } from '@/api/generated/model';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { rules } from '@/lib/validation';
import { DialogActions } from '@/components/DialogActions';

const MAX_DESCRIPTION = 2000;

type DescriptionDialogProps = {
  department: Department | null;
  onClose: () => void;
  onSave: (department: Department, description: string) => Promise<void>;
};

/** Edits a department's description. */
export function DescriptionDialog({ department, onClose, onSave }: DescriptionDialogProps) {
  const { t } = useTranslation();
  const departmentName = department ? t(`departmentTypes.${department.type}`) : '';
  return (
    <Modal opened={department !== null} onClose={onClose} title={t('departments.descriptionDialog.title', { department: departmentName })}>
      {/* Mounted per opening, so that it always starts from the department's current text. */}
      {department && <DescriptionForm key={department.id} department={department} onClose={onClose} onSave={onSave} />}
    </Modal>
  );
}

function DescriptionForm({ department, onClose, onSave }: { department: Department } & Omit<DescriptionDialogProps, 'department'>) {
  const { t } = useTranslation();
  const form = useForm({ initialValues: { description: department.description }, validate: { description: rules.maxLength(MAX_DESCRIPTION) } });
  const fieldProps = useFieldProps(form);

  const submit = form.onSubmit(
    async ({ description }) => {
      try {
        await onSave(department, description.trim());
        onClose();
      } catch (error) {
        showServerErrors(form, serverFieldErrors(error, ['description']), ['description']);
      }
    },
    (errors) => focusFirstError(form, errors, ['description']),
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Textarea {...fieldProps('description')} label={t('departments.descriptionDialog.label')} autosize minRows={3} maxRows={10} data-autofocus />
        <DialogActions onCancel={onClose} saving={form.submitting} />
      </Stack>
    </form>
  );
}
