import { Modal, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { ParseKeys } from 'i18next';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CreatedApiToken } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';
import { DialogActions } from '@/components/DialogActions';
import { DateField } from '@/components/forms/DateField';
import { errorMessage } from '@/lib/errors';
import { type ServerFieldErrors, serverFieldErrors } from '@/lib/form-errors';
import { useFormat } from '@/lib/format';
import { focusFirstError, showServerErrors, useFieldProps } from '@/lib/forms';
import { all, rules } from '@/lib/validation';
import { type TokenOwner, useCreateToken } from '../api';
import { DEFAULT_EXPIRY, EXPIRY_PRESETS, type ExpiryChoice, customExpiryBounds, expiresAt } from '../expiry';
import { type ScopeChoice, scopesOf } from '../scopes';
import { ScopeGrid } from './ScopeGrid';

type Values = { name: string; scopes: ScopeChoice; expiry: ExpiryChoice; expiryDate: string };
type Field = keyof Values;
const FIELDS: readonly Field[] = ['name', 'scopes', 'expiry', 'expiryDate'];
const INITIAL: Values = { name: '', scopes: {}, expiry: DEFAULT_EXPIRY, expiryDate: '' };
const EXPIRY_CHOICES: readonly ExpiryChoice[] = [...EXPIRY_PRESETS, 'custom'];

/** Our words for the server's refusals of these fields, where the generic ones would say too little. */
const FIELD_MESSAGES: Record<string, Partial<Record<string, ParseKeys>>> = {
  scopes: { required: 'apiTokens.form.scopesRequired', invalid: 'apiTokens.form.scopesInvalid' },
  expiresAt: { invalid: 'apiTokens.form.expiryInvalid', required: 'apiTokens.form.expiryInvalid' },
};

/** A 400's `fields` on the form: `expiresAt` goes under the field that set it (the preset or the day). */
function tokenFieldErrors(error: unknown, expiry: ExpiryChoice): ServerFieldErrors<Field> {
  const expiryField: Field = expiry === 'custom' ? 'expiryDate' : 'expiry';
  const mapped = serverFieldErrors(error, FIELDS, { rename: { expiresAt: expiryField } });
  if (isApiRequestError(error)) {
    for (const [serverField, code] of Object.entries(error.fields)) {
      const message = FIELD_MESSAGES[serverField]?.[code];
      const field: Field | undefined = serverField === 'expiresAt' ? expiryField : FIELDS.find((name) => name === serverField);
      if (message && field) mapped.errors[field] = message;
    }
  }
  return mapped;
}

type TokenCreateDialogProps = {
  owner: TokenOwner;
  opened: boolean;
  onClose: () => void;
  /** The new token, secret included: the caller shows it once. */
  onCreated: (token: CreatedApiToken) => void;
};

/** The form of a new token: its name, its scopes and when it expires. */
export function TokenCreateDialog({ owner, opened, onClose, onCreated }: TokenCreateDialogProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const create = useCreateToken(owner);
  const form = useForm<Values>({
    initialValues: INITIAL,
    validate: {
      name: all(rules.required, rules.maxLength(100)),
      scopes: (value): ParseKeys | null => (scopesOf(value).length > 0 ? null : 'apiTokens.form.scopesRequired'),
      expiryDate: (value, values): ParseKeys | null => (values.expiry === 'custom' && !value ? 'validation.required' : null),
    },
  });
  const fieldProps = useFieldProps(form);
  // A failure belongs to the opening it came in (state adjusted while rendering).
  const [failure, setFailure] = useState<Notice | null>(null);
  const [seenOpened, setSeenOpened] = useState(opened);
  if (opened !== seenOpened) {
    setSeenOpened(opened);
    if (opened) setFailure(null);
  }

  // Each opening starts from an empty form.
  useEffect(() => {
    if (opened) {
      form.reset();
      create.reset();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened]);

  const now = new Date();
  const bounds = customExpiryBounds(now);
  const { expiry } = form.values;
  const until = expiry === 'custom' ? undefined : t('apiTokens.form.until', { date: format.date(expiresAt(expiry, '', now)) });
  const scopesError = typeof form.errors.scopes === 'string' ? t(form.errors.scopes as ParseKeys) : undefined;

  const submit = form.onSubmit(
    (values) => {
      setFailure(null);
      create.mutate(
        { name: values.name.trim(), scopes: scopesOf(values.scopes), expiresAt: expiresAt(values.expiry, values.expiryDate, new Date()) },
        {
          onSuccess: (token) => {
            // The secret stays with the caller's dialog only, not in the mutation's cache.
            create.reset();
            onCreated(token);
          },
          onError: (error) => {
            // What a field explains is said at the field; anything else at the top of the form.
            if (!showServerErrors(form, tokenFieldErrors(error, values.expiry), FIELDS)) {
              setFailure({ title: t('apiTokens.form.failed'), message: errorMessage(error, t) });
            }
          },
        },
      );
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  return (
    <Modal opened={opened} onClose={onClose} title={t(`apiTokens.${owner.kind}.createTitle`)} size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          <InlineNotice notice={failure} onClose={() => setFailure(null)} />
          <TextInput {...fieldProps('name')} label={t('apiTokens.form.name')} description={t('apiTokens.form.nameDescription')} required data-autofocus />
          <ScopeGrid
            value={form.values.scopes}
            onChange={(next) => {
              form.setFieldValue('scopes', next);
              form.clearFieldError('scopes');
            }}
            description={t(`apiTokens.${owner.kind}.scopesHint`)}
            error={scopesError}
          />
          <Select
            {...fieldProps('expiry')}
            label={t('apiTokens.form.expiry')}
            description={until}
            data={EXPIRY_CHOICES.map((value) => ({ value, label: t(`apiTokens.form.expiryOptions.${value}`) }))}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
          {expiry === 'custom' && (
            <DateField {...fieldProps('expiryDate')} label={t('apiTokens.form.expiryDate')} withAsterisk min={bounds.min} max={bounds.max} />
          )}
          <DialogActions onCancel={onClose} submitLabel={t('apiTokens.form.submit')} saving={create.isPending} />
        </Stack>
      </form>
    </Modal>
  );
}
