import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { createConversation, createGroupChat } from '@/api/generated/messaging/messaging';
import type { Conversation, Correspondent } from '@/api/generated/model';
import { useFormat } from '@/lib/format';
import { messengerError } from '../errors';
import { listNames, useRefreshConversation } from '../hooks';
import { PeoplePicker } from './PeoplePicker';

type DialogProps = { opened: boolean; onClose: () => void; onCreated: (conversation: Conversation) => void };

/** "New chat": pick one person; their conversation with the user opens (the existing one if any). */
export function NewChatDialog({ opened, onClose, onCreated }: DialogProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const refresh = useRefreshConversation();

  const pick = async (person: Correspondent) => {
    setBusy(true);
    setFailure(null);
    try {
      const conversation = await createConversation({ participantId: person.id });
      void refresh(conversation.id);
      onCreated(conversation);
    } catch (error) {
      setFailure(messengerError(error, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title={t('messenger.newChat.title')} size="md" closeButtonProps={{ 'aria-label': t('common.close') }}>
      {opened && (
        <Stack gap="sm">
          <Text size="sm">{t('messenger.newChat.intro')}</Text>
          {failure && (
            <Alert color="red" variant="light" role="alert">
              {failure}
            </Alert>
          )}
          <PeoplePicker mode="single" onPick={(person) => void pick(person)} busy={busy} />
        </Stack>
      )}
    </Modal>
  );
}

const MAX_NAME = 100;

/** "New group": a name and the members (at least one besides the user). */
export function NewGroupDialog({ opened, onClose, onCreated }: DialogProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={t('messenger.newGroup.title')} size="md" closeButtonProps={{ 'aria-label': t('common.close') }}>
      {opened && <NewGroupForm onClose={onClose} onCreated={onCreated} />}
    </Modal>
  );
}

function NewGroupForm({ onClose, onCreated }: Omit<DialogProps, 'opened'>) {
  const { t } = useTranslation();
  const { locale } = useFormat();
  const [name, setName] = useState('');
  const [people, setPeople] = useState<Correspondent[]>([]);
  const [nameError, setNameError] = useState<string | null>(null);
  const [peopleError, setPeopleError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = useRefreshConversation();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    setNameError(trimmed ? null : t('validation.required'));
    setPeopleError(people.length > 0 ? null : t('messenger.newGroup.pickSomeone'));
    if (!trimmed || people.length === 0) return;
    setBusy(true);
    setFailure(null);
    try {
      const conversation = await createGroupChat({ name: trimmed, participantIds: people.map((p) => p.id) });
      void refresh(conversation.id);
      onCreated(conversation);
    } catch (error) {
      setFailure(messengerError(error, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Stack gap="sm">
        <TextInput
          label={t('messenger.newGroup.name')}
          required
          maxLength={MAX_NAME}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={nameError}
          data-autofocus
        />
        <Text size="sm" fw={500} aria-live="polite">
          {people.length === 0
            ? t('messenger.newGroup.noneChosen')
            : t('messenger.newGroup.chosen', {
                names: listNames(
                  people.map((p) => p.fullName),
                  locale,
                ),
              })}
        </Text>
        <PeoplePicker mode="multi" selected={people} onChange={setPeople} />
        {peopleError && (
          <Text size="sm" c="red" role="alert">
            {peopleError}
          </Text>
        )}
        {failure && (
          <Alert color="red" variant="light" role="alert">
            {failure}
          </Alert>
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={busy}>
            {t('messenger.newGroup.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
