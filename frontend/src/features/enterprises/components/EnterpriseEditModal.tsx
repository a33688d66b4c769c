import { Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EnterpriseDetail } from '@/api/generated/model';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { all, rules } from '@/lib/validation';
import { useUpdateEnterpriseMutation } from '../api';
import { DialogActions } from '@/components/DialogActions';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';

type Values = { name: string; description: string };
const FIELDS = ['name', 'description'] as const;

type EnterpriseEditModalProps = { enterprise: EnterpriseDetail; opened: boolean; onClose: () => void };

/** Renames an enterprise and edits its description. */
export function EnterpriseEditModal({ enterprise, opened, onClose }: EnterpriseEditModalProps) {
  const { t } = useTranslation();
  const update = useUpdateEnterpriseMutation();
  const form = useForm<Values>({
    initialValues: { name: enterprise.name, description: enterprise.description },
    validate: { name: all(rules.required, rules.maxLength(200)), description: rules.maxLength(2000) },
  });
  const fieldProps = useFieldProps(form);
  const [failure, setFailure] = useState<Notice | null>(null);
  const close = () => {
    setFailure(null);
    onClose();
  };

  // Each opening starts from the enterprise as it is now.
  useEffect(() => {
    if (opened) {
      form.setValues({ name: enterprise.name, description: enterprise.description });
      form.clearErrors();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened]);

  const submit = form.onSubmit(
    (values) => {
      setFailure(null);
      update.mutate(
        { id: enterprise.id, data: { name: values.name.trim(), description: values.description.trim() } },
        {
          onSuccess: () => {
            notify.success(`enterprise.update:${enterprise.id}`, t('enterprises.edit.success'));
            close();
          },
          onError: (error) => {
            // Names are unique ignoring case and accents: a 409 `name: taken` is shown on the field;
            // any other failure at the top of the form.
            if (!showServerErrors(form, serverFieldErrors(error, FIELDS, { takenMessages: { name: 'enterprises.nameTaken' } }), FIELDS)) {
              setFailure({ title: t('enterprises.edit.failed'), message: errorMessage(error, t) });
            }
          },
        },
      );
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  return (
    <Modal opened={opened} onClose={close} title={t('enterprises.edit.title', { name: enterprise.name })}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <InlineNotice notice={failure} onClose={() => setFailure(null)} />
          <TextInput {...fieldProps('name')} label={t('enterprises.fields.name')} required data-autofocus />
          <Textarea {...fieldProps('description')} label={t('enterprises.fields.description')} autosize minRows={3} maxRows={8} />
          <DialogActions onCancel={close} saving={update.isPending} />
        </Stack>
      </form>
    </Modal>
  );
}
