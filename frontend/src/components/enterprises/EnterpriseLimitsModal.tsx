import { Modal, NumberInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getGetEnterpriseUsageQueryKey, useSetEnterpriseLimits } from '@/api/generated/enterprises/enterprises';
import type { UsageLimits } from '@/api/generated/model';
import { DialogActions } from '@/components/DialogActions';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';
import { errorMessage } from '@/lib/errors';
import { serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';

const MB = 1_000_000;
type Values = { people: number | string; storageMb: number | string; apiCallsPerMinute: number | string };
const FIELDS = ['people', 'storageMb', 'apiCallsPerMinute'] as const;

/** Empty (the platform's default), or a whole number from 1 to `max`. */
const wholeUpTo = (max: number) => (value: number | string) =>
  value === '' || (Number.isInteger(Number(value)) && Number(value) >= 1 && Number(value) <= max) ? null : 'enterprises.usage.limits.invalid';

const values = (own: UsageLimits): Values => ({
  people: own.people ?? '',
  storageMb: own.storageBytes !== undefined ? Math.max(1, Math.round(own.storageBytes / MB)) : '',
  apiCallsPerMinute: own.apiCallsPerMinute ?? '',
});

type Props = { enterpriseId: string; own: UsageLimits; opened: boolean; onClose: () => void };

/** The platform admin sets an enterprise's own limits (`PUT /enterprises/{id}/limits`); an empty one takes the platform's default. */
export function EnterpriseLimitsModal({ enterpriseId, own, opened, onClose }: Props) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const save = useSetEnterpriseLimits();
  const form = useForm<Values>({
    initialValues: values(own),
    validate: { people: wholeUpTo(1_000_000), storageMb: wholeUpTo(1_000_000_000), apiCallsPerMinute: wholeUpTo(1_000_000) },
  });
  const fieldProps = useFieldProps(form);
  const [failure, setFailure] = useState<Notice | null>(null);
  const close = () => {
    setFailure(null);
    onClose();
  };

  // Each opening starts from the limits as they are now.
  useEffect(() => {
    if (opened) {
      form.setValues(values(own));
      form.clearErrors();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened]);

  const submit = form.onSubmit(
    (v) => {
      setFailure(null);
      const number = (value: number | string) => (value === '' ? null : Number(value));
      const storage = number(v.storageMb);
      save.mutate(
        {
          id: enterpriseId,
          data: { people: number(v.people), storageBytes: storage === null ? null : storage * MB, apiCallsPerMinute: number(v.apiCallsPerMinute) },
        },
        {
          onSuccess: () => {
            void client.invalidateQueries({ queryKey: getGetEnterpriseUsageQueryKey(enterpriseId) });
            notify.success(`enterprise.limits:${enterpriseId}`, t('enterprises.usage.limits.saved'));
            close();
          },
          onError: (error) => {
            if (!showServerErrors(form, serverFieldErrors(error, FIELDS, { rename: { storageBytes: 'storageMb' } }), FIELDS)) {
              setFailure({ title: t('enterprises.usage.limits.failed'), message: errorMessage(error, t) });
            }
          },
        },
      );
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  const hint = t('enterprises.usage.limits.emptyIsDefault');
  return (
    <Modal opened={opened} onClose={close} title={t('enterprises.usage.limits.title')}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <InlineNotice notice={failure} onClose={() => setFailure(null)} />
          <Text size="sm">{t('enterprises.usage.limits.description')}</Text>
          <NumberInput
            {...fieldProps('people')}
            label={t('enterprises.usage.limits.people')}
            description={hint}
            min={1}
            allowDecimal={false}
            clampBehavior="none"
            data-autofocus
          />
          <NumberInput
            {...fieldProps('storageMb')}
            label={t('enterprises.usage.limits.storageMb')}
            description={hint}
            min={1}
            allowDecimal={false}
            clampBehavior="none"
          />
          <NumberInput
            {...fieldProps('apiCallsPerMinute')}
            label={t('enterprises.usage.limits.apiCallsPerMinute')}
            description={hint}
            min={1}
            allowDecimal={false}
          />
          <DialogActions onCancel={close} saving={save.isPending} />
        </Stack>
      </form>
    </Modal>
  );
}
