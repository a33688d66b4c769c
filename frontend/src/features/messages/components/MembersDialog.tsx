import { ActionIcon, Alert, Badge, Button, Divider, Group, Modal, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { openConfirmModal } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconDoorExit, IconShieldCheck, IconUserMinus } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { addConversationMembers, removeConversationMember, updateConversation } from '@/api/generated/messaging/messaging';
import type { Conversation, Correspondent, UserSummary } from '@/api/generated/model';
import { useFormat } from '@/lib/format';
import { useCurrentUser } from '@/lib/session';
import { messengerError } from '../errors';
import { listNames, useRefreshConversation } from '../hooks';
import { PeoplePicker } from './PeoplePicker';
import classes from './messages.module.css';

type MembersProps = {
  conversation: Conversation;
  opened: boolean;
  onClose: () => void;
  onVerify: (person: UserSummary) => void;
  onLeft: () => void;
};

/**
 * A group's members: add people, remove someone (the creator, while a member; anyone once the
 * creator has left), leave, rename. Each change asks first, naming the person and the group;
 * the server then requires a new key epoch, which the next message starts.
 */
export function MembersDialog({ conversation, opened, onClose, onVerify, onLeft }: MembersProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('messenger.members.title', { name: conversation.name ?? '' })}
      size="lg"
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      {opened && <Members conversation={conversation} onVerify={onVerify} onLeft={onLeft} />}
    </Modal>
  );
}

function Members({ conversation, onVerify, onLeft }: Omit<MembersProps, 'opened' | 'onClose'>) {
  const { t } = useTranslation();
  const { locale } = useFormat();
  const me = useCurrentUser().id;
  const refresh = useRefreshConversation();
  const [adding, setAdding] = useState<Correspondent[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const group = conversation.name ?? '';
  const creatorHere = conversation.members.some((m) => m.id === conversation.createdBy);
  const mayRemove = !creatorHere || conversation.createdBy === me;

  const run = async (action: () => Promise<unknown>, success: string) => {
    setBusy(true);
    setFailure(null);
    try {
      await action();
      notifications.show({ color: 'teal', message: success });
      await refresh(conversation.id);
      return true;
    } catch (error) {
      setFailure(messengerError(error, t));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const confirmAdd = () => {
    const names = listNames(
      adding.map((p) => p.fullName),
      locale,
    );
    openConfirmModal({
      title: t('messenger.members.addTitle'),
      children: <Text size="sm">{t('messenger.members.addQuestion', { names, group })}</Text>,
      labels: { confirm: t('messenger.members.addConfirm'), cancel: t('common.cancel') },
      onConfirm: () =>
        void run(() => addConversationMembers(conversation.id, { userIds: adding.map((p) => p.id) }), t('messenger.members.added', { names, group })).then(
          (done) => done && setAdding([]),
        ),
    });
  };

  const confirmRemove = (person: UserSummary) =>
    openConfirmModal({
      title: t('messenger.members.removeTitle'),
      children: <Text size="sm">{t('messenger.members.removeQuestion', { name: person.fullName, group })}</Text>,
      labels: { confirm: t('messenger.members.removeConfirm'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () => void run(() => removeConversationMember(conversation.id, person.id), t('messenger.members.removed', { name: person.fullName, group })),
    });

  const confirmLeave = () =>
    openConfirmModal({
      title: t('messenger.members.leaveTitle'),
      children: <Text size="sm">{t('messenger.members.leaveQuestion', { group })}</Text>,
      labels: { confirm: t('messenger.members.leaveConfirm'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () => void run(() => removeConversationMember(conversation.id, me), t('messenger.members.left', { group })).then((done) => done && onLeft()),
    });

  return (
    <Stack gap="md">
      {failure && (
        <Alert color="red" variant="light" role="alert">
          {failure}
        </Alert>
      )}
      <Rename conversation={conversation} onRenamed={() => refresh(conversation.id)} />
      <Divider />
      <Title order={3} size="h5">
        {t('messenger.members.count', { count: conversation.members.length })}
      </Title>
      <ul className={classes.plainList} aria-label={t('messenger.members.listLabel')}>
        {conversation.members.map((member) => (
          <li key={member.id} className={classes.memberRow}>
            <Group justify="space-between" wrap="nowrap" gap="xs">
              <div style={{ minWidth: 0 }}>
                <Group gap={6}>
                  <Text fw={500} truncate>
                    {member.id === me ? t('messenger.members.you', { name: member.fullName }) : member.fullName}
                  </Text>
                  {member.id === conversation.createdBy && (
                    <Badge size="xs" variant="light">
                      {t('messenger.members.creator')}
                    </Badge>
                  )}
                </Group>
                <Text size="xs" c="dimmed" truncate>
                  {member.email}
                </Text>
              </div>
              {member.id !== me && (
                <Group gap={4} wrap="nowrap">
                  <Tooltip label={t('messenger.safety.verifyWith', { name: member.fullName })}>
                    <ActionIcon variant="subtle" aria-label={t('messenger.safety.verifyWith', { name: member.fullName })} onClick={() => onVerify(member)}>
                      <IconShieldCheck size={18} aria-hidden />
                    </ActionIcon>
                  </Tooltip>
                  {mayRemove && (
                    <Tooltip label={t('messenger.members.removeNamed', { name: member.fullName })}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={t('messenger.members.removeNamed', { name: member.fullName })}
                        onClick={() => confirmRemove(member)}
                        disabled={busy}
                      >
                        <IconUserMinus size={18} aria-hidden />
                      </ActionIcon>
                    </Tooltip>
                  )}
                </Group>
              )}
            </Group>
          </li>
        ))}
      </ul>
      <Divider />
      <Title order={3} size="h5">
        {t('messenger.members.addHeading')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('messenger.members.addHint')}
      </Text>
      <PeoplePicker mode="multi" selected={adding} onChange={setAdding} exclude={conversation.members.map((m) => m.id)} />
      <Group justify="flex-end">
        <Button onClick={confirmAdd} disabled={adding.length === 0 || busy}>
          {adding.length === 0 ? t('messenger.members.addHeading') : t('messenger.members.addButton', { count: adding.length })}
        </Button>
      </Group>
      <Divider />
      <Group justify="flex-start">
        <Button color="red" variant="light" leftSection={<IconDoorExit size={16} aria-hidden />} onClick={confirmLeave} disabled={busy}>
          {t('messenger.members.leave')}
        </Button>
      </Group>
    </Stack>
  );
}

function Rename({ conversation, onRenamed }: { conversation: Conversation; onRenamed: () => unknown }) {
  const { t } = useTranslation();
  const [name, setName] = useState(conversation.name ?? '');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setError(t('validation.required'));
    if (trimmed === conversation.name) return;
    setSaving(true);
    setError(null);
    try {
      await updateConversation(conversation.id, { name: trimmed });
      notifications.show({ color: 'teal', message: t('messenger.members.renamed', { name: trimmed }) });
      await onRenamed();
    } catch (failure) {
      setError(messengerError(failure, t));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Group align="flex-end" gap="sm" wrap="nowrap">
        <TextInput
          style={{ flex: 1 }}
          label={t('messenger.members.name')}
          value={name}
          maxLength={100}
          required
          onChange={(event) => setName(event.currentTarget.value)}
          error={error}
        />
        <Button type="submit" variant="default" loading={saving}>
          {t('messenger.members.rename')}
        </Button>
      </Group>
    </form>
  );
}
