import { Alert, Button, Group, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import { IconAlertCircle, IconFingerprint, IconKey } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PasskeyInfo } from '@/api/generated/model';
import { isApiRequestError } from '@/api/mutator';
import { DialogActions } from '@/components/DialogActions';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { QueryError } from '@/components/data/QueryError';
import { defaultPasskeyName, passkeyErrorMessage, passkeysSupported } from '@/components/passkeys/webauthn';
import { errorMessage, fieldErrorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { notify } from '@/lib/notify';
import { useAddPasskeyMutation, usePasskeys, useRemovePasskeyMutation, useRenamePasskeyMutation } from '../api';

/** As many as the server keeps for one person. */
const MAX_PASSKEYS = 20;
/** The longest name the server takes. */
const MAX_NAME = 100;

/** The server's reason for refusing a name (`fields.name`), if that is what it refused. */
const refusedName = (error: unknown) => (isApiRequestError(error) ? error.fields.name : undefined);

type NameFormProps = {
  initial: string;
  description?: string;
  submitLabel?: string;
  pending: boolean;
  /** The last failure: a refused name shows under the field, anything else (the browser's, the server's) above it. */
  failure: unknown;
  onSubmit: (name: string) => void;
  onCancel: () => void;
};

/** A passkey's name, in a dialog: to add one (then the browser's prompt) or to rename one. */
function NameForm({ initial, description, submitLabel, pending, failure, onSubmit, onCancel }: NameFormProps) {
  const { t } = useTranslation();
  const [name, setName] = useState(initial);
  const [required, setRequired] = useState(false);
  const refused = refusedName(failure);
  const fieldError = required ? t('validation.required') : refused && fieldErrorMessage(refused, t);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const trimmed = name.trim();
    if (!trimmed) return setRequired(true);
    onSubmit(trimmed);
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        {description && <Text size="sm">{description}</Text>}
        {failure !== null && !refused && (
          <Alert color="red" icon={<IconAlertCircle aria-hidden />} role="alert">
            {passkeyErrorMessage(failure, t)}
          </Alert>
        )}
        <TextInput
          label={t('profile.passkeys.nameLabel')}
          value={name}
          onChange={(event) => {
            setName(event.currentTarget.value);
            setRequired(false);
          }}
          error={fieldError}
          maxLength={MAX_NAME}
          required
          autoComplete="off"
          data-autofocus
        />
        <DialogActions onCancel={onCancel} submitLabel={submitLabel} saving={pending} />
      </Stack>
    </form>
  );
}

/** Adding a passkey: its name (where it is made, by default), then the browser's own prompt. */
function AddDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const add = useAddPasskeyMutation();
  return (
    <Modal opened={opened} onClose={onClose} onExitTransitionEnd={add.reset} title={t('profile.passkeys.addTitle')} closeOnClickOutside={!add.isPending}>
      <div data-testid="add-passkey-dialog">
        <NameForm
          initial={defaultPasskeyName(navigator.userAgent, t)}
          description={t('profile.passkeys.addBody')}
          submitLabel={t('profile.passkeys.create')}
          pending={add.isPending}
          failure={add.error}
          onCancel={onClose}
          onSubmit={(name) =>
            add.mutate(name, {
              onSuccess: (passkey) => {
                notify.success('profile.passkeys.add', t('profile.passkeys.addedToast', { name: passkey.name }));
                onClose();
              },
            })
          }
        />
      </div>
    </Modal>
  );
}

function RenameDialog({ passkey, onClose }: { passkey: PasskeyInfo | null; onClose: () => void }) {
  const { t } = useTranslation();
  const rename = useRenamePasskeyMutation();
  return (
    <Modal opened={passkey !== null} onClose={onClose} onExitTransitionEnd={rename.reset} title={t('profile.passkeys.renameTitle')}>
      {passkey && (
        <NameForm
          initial={passkey.name}
          pending={rename.isPending}
          failure={rename.error}
          onCancel={onClose}
          onSubmit={(name) =>
            rename.mutate(
              { id: passkey.id, name },
              {
                onSuccess: () => {
                  notify.success(`profile.passkeys.rename:${passkey.id}`, t('profile.passkeys.renamed'));
                  onClose();
                },
              },
            )
          }
        />
      )}
    </Modal>
  );
}

function PasskeyRow({ passkey, onRename, onRemove }: { passkey: PasskeyInfo; onRename: () => void; onRemove: () => void }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <Group component="li" justify="space-between" wrap="wrap" gap="sm" py="xs" data-testid="passkey-row">
      <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: '1 1 16rem' }}>
        <IconKey size={20} aria-hidden style={{ flexShrink: 0 }} />
        <Stack gap={0} miw={0}>
          <Text fw={500} style={{ overflowWrap: 'anywhere' }} data-testid="passkey-name">
            {passkey.name}
          </Text>
          <Text size="sm" c="dimmed">
            {t('profile.passkeys.added', { date: format.date(passkey.createdAt) })}
            {' · '}
            {passkey.lastUsedAt ? t('profile.passkeys.lastUsed', { date: format.date(passkey.lastUsedAt) }) : t('profile.passkeys.neverUsed')}
          </Text>
        </Stack>
      </Group>
      <Group gap="xs" wrap="nowrap">
        <Button variant="subtle" size="compact-sm" onClick={onRename} aria-label={t('profile.passkeys.renameLabel', { name: passkey.name })}>
          {t('profile.passkeys.rename')}
        </Button>
        <Button variant="subtle" color="red" size="compact-sm" onClick={onRemove} aria-label={t('profile.passkeys.removeLabel', { name: passkey.name })}>
          {t('profile.passkeys.remove')}
        </Button>
      </Group>
    </Group>
  );
}

/**
 * The profile's "Passkeys": the person's passkeys (name, when added, when last used), adding one
 * (a name, then the browser's prompt), renaming and removing one (after a confirmation that names
 * it). A browser without WebAuthn cannot add one: it says so, and still renames and removes.
 */
export function PasskeysContent() {
  const { t } = useTranslation();
  const passkeys = usePasskeys();
  const remove = useRemovePasskeyMutation();
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<PasskeyInfo | null>(null);
  const supported = passkeysSupported();
  const full = (passkeys.data?.length ?? 0) >= MAX_PASSKEYS;

  const askRemove = (passkey: PasskeyInfo) =>
    openConfirmModal({
      title: t('profile.passkeys.removeTitle'),
      children: (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="remove-passkey-confirmation">
          {t('profile.passkeys.removeBody', { name: passkey.name })}
        </Text>
      ),
      labels: { confirm: t('profile.passkeys.removeConfirm'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(passkey, {
          onSuccess: () => notify.success(`profile.passkeys.remove:${passkey.id}`, t('profile.passkeys.removed', { name: passkey.name })),
          onError: (error) => notify.failure(`profile.passkeys.remove:${passkey.id}`, t('profile.passkeys.removeFailed'), errorMessage(error, t)),
        }),
    });

  const body = () => {
    if (passkeys.isPending) {
      return (
        <Group justify="center" py="sm">
          <Loader size="sm" role="status" aria-label={t('app.loading')} />
        </Group>
      );
    }
    if (passkeys.isError) return <QueryError error={passkeys.error} onRetry={() => void passkeys.refetch()} retrying={passkeys.isFetching} />;
    if (passkeys.data.length === 0) {
      return (
        <EmptyMessage icon={<IconFingerprint size={32} aria-hidden />} title={t('profile.passkeys.empty')} description={t('profile.passkeys.emptyHint')} />
      );
    }
    return (
      <Stack component="ul" gap={0} m={0} p={0} style={{ listStyle: 'none' }} aria-label={t('profile.passkeys.listLabel')}>
        {passkeys.data.map((passkey) => (
          <PasskeyRow key={passkey.id} passkey={passkey} onRename={() => setRenaming(passkey)} onRemove={() => askRemove(passkey)} />
        ))}
      </Stack>
    );
  };

  return (
    <Stack gap="md">
      {body()}
      {!supported && (
        <Alert color="yellow" variant="light" data-testid="passkeys-unsupported">
          {t('profile.passkeys.unsupported')}
        </Alert>
      )}
      {supported && full && (
        <Text size="sm" c="dimmed">
          {t('profile.passkeys.full')}
        </Text>
      )}
      <Group justify="flex-end">
        <Button leftSection={<IconFingerprint size={18} aria-hidden />} onClick={() => setAdding(true)} disabled={!supported || full || !passkeys.isSuccess}>
          {t('profile.passkeys.add')}
        </Button>
      </Group>
      <AddDialog opened={adding} onClose={() => setAdding(false)} />
      <RenameDialog passkey={renaming} onClose={() => setRenaming(null)} />
    </Stack>
  );
}
