import { Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { ParseKeys } from 'i18next';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UpdateWebhook, Webhook, WebhookWithSecret } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';
import { DialogActions } from '@/components/DialogActions';
import { errorMessage } from '@/lib/errors';
import { type ServerFieldErrors, serverFieldErrors } from '@/lib/form-errors';
import { focusFirstError, useFieldProps } from '@/lib/forms';
import { notify } from '@/lib/notify';
import { type FieldError, all, rules } from '@/lib/validation';
import { type WebhookScope, useCreateWebhook, useUpdateWebhook, useWebhookUrlRules } from '../webhook-api';
import { EventPicker } from './EventPicker';

type Values = { url: string; events: string[]; description: string };
type Field = keyof Values;
const FIELDS: readonly Field[] = ['url', 'events', 'description'];
const EMPTY: Values = { url: '', events: [], description: '' };

/** The server's limits (`CreateWebhook`): the URL's length, and the description's in characters. */
const MAX_URL = 2000;
const MAX_DESCRIPTION = 200;
const HTTP_URL = /^https?:\/\/[^\s/?#]+\S*$/i;

/** Our words for the server's refusals of these fields, where the generic ones would say too little. */
const FIELD_MESSAGES: Record<string, Partial<Record<string, ParseKeys>>> = {
  events: { required: 'webhooks.form.eventsRequired', invalid: 'webhooks.form.eventsInvalid' },
};

/**
 * Why the server refused a URL (its 400 says so in `message`): our words for the refusals we
 * know, so that they read in the interface language; the server's own words otherwise.
 */
const URL_REFUSALS: readonly [RegExp, ParseKeys][] = [
  [/must use https/i, 'webhooks.serverUrl.https'],
  [/private network/i, 'webhooks.serverUrl.private'],
  [/does not resolve/i, 'webhooks.serverUrl.unresolvable'],
  [/absolute http/i, 'webhooks.serverUrl.invalid'],
];

type UrlRefusal = { key: ParseKeys } | { text: string };

function urlRefusal(error: unknown): UrlRefusal | null {
  if (!isApiRequestError(error) || !error.fields.url) return null;
  const message = error.serverMessage ?? '';
  const known = URL_REFUSALS.find(([pattern]) => pattern.test(message));
  if (known) return { key: known[1] };
  return message ? { text: message } : { key: 'webhooks.form.urlInvalid' };
}

function webhookFieldErrors(error: unknown): ServerFieldErrors<Field> {
  const mapped = serverFieldErrors(error, FIELDS);
  if (isApiRequestError(error)) {
    for (const [field, code] of Object.entries(error.fields)) {
      const message = FIELD_MESSAGES[field]?.[code];
      if (message && FIELDS.includes(field as Field)) mapped.errors[field as Field] = message;
    }
  }
  // The URL's message is shown on its own (the server's words, or ours for them).
  delete mapped.errors.url;
  return mapped;
}

const sameEvents = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

type WebhookFormDialogProps = {
  scope: WebhookScope;
  /** The webhook to edit; null for a new one. */
  webhook: Webhook | null;
  opened: boolean;
  onClose: () => void;
  /** A new webhook, secret included: the caller shows it once. */
  onCreated: (webhook: WebhookWithSecret) => void;
};

/** The form of a webhook, new or edited: where events go, which ones, and what it is for. */
export function WebhookFormDialog({ scope, webhook, opened, onClose, onCreated }: WebhookFormDialogProps) {
  const { t, i18n } = useTranslation();
  // The server says which addresses it takes (https on the public internet in production; any
  // address where private networks are allowed, as in development): the form says the same.
  const urlRules = useWebhookUrlRules(opened).data;
  const create = useCreateWebhook(scope);
  const update = useUpdateWebhook();
  const [refusal, setRefusal] = useState<UrlRefusal | null>(null);
  const [failure, setFailure] = useState<Notice | null>(null);
  const form = useForm<Values>({
    initialValues: EMPTY,
    validate: {
      url: (value): FieldError | null =>
        rules.required(value) ??
        rules.maxLength(MAX_URL)(value.trim()) ??
        (HTTP_URL.test(value.trim()) ? null : urlRules?.privateNetworks ? 'webhooks.form.urlInvalidAny' : 'webhooks.form.urlInvalid'),
      events: (value): ParseKeys | null => (value.length > 0 ? null : 'webhooks.form.eventsRequired'),
      description: all(rules.maxLength(MAX_DESCRIPTION)),
    },
  });
  const fieldProps = useFieldProps(form);

  // A refusal belongs to the opening it came in: the next one starts without it (state adjusted
  // while rendering, so the old message never shows for a frame).
  const [seenOpened, setSeenOpened] = useState(opened);
  if (opened !== seenOpened) {
    setSeenOpened(opened);
    if (opened) {
      setRefusal(null);
      setFailure(null);
    }
  }

  // Each opening starts from the webhook's values, or from an empty form.
  useEffect(() => {
    if (opened) {
      const values = webhook ? { url: webhook.url, events: [...webhook.events], description: webhook.description } : EMPTY;
      form.setInitialValues(values);
      form.setValues(values);
      form.resetDirty(values);
      form.clearErrors();
      create.reset();
      update.reset();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened, webhook]);

  const eventsError = typeof form.errors.events === 'string' ? t(form.errors.events as ParseKeys) : undefined;
  const urlProps = fieldProps('url');
  const urlDescription = !urlRules
    ? t('webhooks.form.urlDescription')
    : urlRules.privateNetworks
      ? t('webhooks.form.urlRulesAny')
      : t('webhooks.form.urlRulesPublic', {
          ports: new Intl.ListFormat(i18n.language, { type: 'disjunction' }).format(urlRules.ports.map(String)),
        });
  const urlError = refusal ? ('key' in refusal ? t(refusal.key) : refusal.text) : urlProps.error;

  // What a field explains is said at the field; anything else at the top of the form.
  const failed = (error: unknown, title: string) => {
    const refused = urlRefusal(error);
    setRefusal(refused);
    const mapped = webhookFieldErrors(error);
    if (Object.keys(mapped.errors).length > 0) form.setErrors(mapped.errors as Record<string, ParseKeys>);
    else if (!refused) setFailure({ title, message: errorMessage(error, t) });
    // The URL comes first in the form: its refusal is where the keyboard goes.
    if (refused) form.getInputNode('url')?.focus();
    else focusFirstError(form, mapped.errors, FIELDS);
  };

  const submit = form.onSubmit(
    (values) => {
      setFailure(null);
      const url = values.url.trim();
      const description = values.description.trim();
      if (!webhook) {
        create.mutate(
          { url, events: values.events, description: description || undefined },
          {
            onSuccess: (made) => {
              // The secret stays with the caller's dialog only, not in the mutation's cache.
              create.reset();
              notify.success('webhook.create', t('webhooks.form.created', { url: made.url }));
              onCreated(made);
            },
            onError: (error) => failed(error, t('webhooks.form.createFailed')),
          },
        );
        return;
      }
      const data: UpdateWebhook = {};
      if (url !== webhook.url) data.url = url;
      if (!sameEvents(values.events, webhook.events)) data.events = values.events;
      if (description !== webhook.description) data.description = description;
      if (Object.keys(data).length === 0) {
        onClose();
        return;
      }
      update.mutate(
        { id: webhook.id, data },
        {
          onSuccess: (saved) => {
            notify.success(`webhook.update:${webhook.id}`, t('webhooks.form.updated', { url: saved.url }));
            onClose();
          },
          onError: (error) => failed(error, t('webhooks.form.updateFailed')),
        },
      );
    },
    (errors) => focusFirstError(form, errors, FIELDS),
  );

  return (
    <Modal opened={opened} onClose={onClose} title={webhook ? t('webhooks.editTitle') : t(`webhooks.${scope.kind}.createTitle`)} size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          <InlineNotice notice={failure} onClose={() => setFailure(null)} />
          <TextInput
            {...urlProps}
            onChange={(event) => {
              urlProps.onChange(event);
              setRefusal(null);
            }}
            error={urlError}
            type="url"
            label={t('webhooks.form.url')}
            description={urlDescription}
            placeholder="https://example.com/webhooks"
            required
            data-autofocus
          />
          <EventPicker
            value={form.values.events}
            onChange={(next) => {
              form.setFieldValue('events', next);
              form.clearFieldError('events');
            }}
            error={eventsError}
          />
          <Textarea
            {...fieldProps('description')}
            label={t('webhooks.form.description')}
            description={t('webhooks.form.descriptionHint')}
            autosize
            minRows={2}
            maxRows={5}
          />
          <DialogActions
            onCancel={onClose}
            submitLabel={webhook ? t('common.save') : t('webhooks.form.submit')}
            saving={create.isPending || update.isPending}
          />
        </Stack>
      </form>
    </Modal>
  );
}
