import { Alert, Button, Code, Group, Modal, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconShieldCheck, IconShieldExclamation } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserSummary } from '@/api/generated/model';
import { QueryError } from '@/components/data/QueryError';
import { formatSafetyNumber } from '@/lib/crypto';
import type { Messenger } from '../engine/messenger';

type SafetyProps = { messenger: Messenger; person: UserSummary | null; onClose: () => void; onAccepted: (person: UserSummary) => void };

type Loaded = { digits: string; check: 'new' | 'same' | 'changed' | null };

/**
 * The safety number the user and another person both see: compared out of band (in person, on
 * a call), it proves nobody stands between them. Marking it verified pins the person's current
 * keys, which ends the "keys changed" notice.
 */
export function SafetyDialog({ messenger, person, onClose, onAccepted }: SafetyProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={person !== null}
      onClose={onClose}
      title={person ? t('messenger.safety.title', { name: person.fullName }) : ''}
      size="lg"
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      {person && <SafetyNumber messenger={messenger} person={person} onClose={onClose} onAccepted={onAccepted} />}
    </Modal>
  );
}

function SafetyNumber({ messenger, person, onClose, onAccepted }: SafetyProps & { person: UserSummary }) {
  const { t } = useTranslation();
  const [loaded, setLoaded] = useState<Loaded | Error | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let live = true;
    Promise.all([messenger.safetyNumber(person.id), messenger.checkKeys(person.id)]).then(
      ([digits, check]) => live && setLoaded({ digits, check }),
      (error: unknown) => live && setLoaded(error instanceof Error ? error : new Error(String(error))),
    );
    return () => {
      live = false;
    };
  }, [messenger, person.id, attempt]);

  const accept = async () => {
    setSaving(true);
    try {
      await messenger.acceptKeys(person.id);
      notifications.show({ color: 'teal', message: t('messenger.safety.verified', { name: person.fullName }) });
      onAccepted(person);
      onClose();
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="md">
      <Text size="sm">{t('messenger.safety.explain', { name: person.fullName })}</Text>
      {loaded === null && <Skeleton h={120} />}
      {loaded instanceof Error && <QueryError error={loaded} onRetry={() => setAttempt((n) => n + 1)} />}
      {loaded && !(loaded instanceof Error) && (
        <>
          {loaded.check === 'changed' && (
            <Alert color="orange" variant="light" icon={<IconShieldExclamation aria-hidden />}>
              {t('messenger.safety.changed', { name: person.fullName })}
            </Alert>
          )}
          <SimpleGrid cols={{ base: 3, xs: 4 }} spacing="xs" aria-label={t('messenger.safety.number')} role="group" data-testid="safety-number">
            {formatSafetyNumber(loaded.digits)
              .split(' ')
              .map((group, index) => (
                <Code key={index} fz="lg" ta="center" py={6}>
                  {group}
                </Code>
              ))}
          </SimpleGrid>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button leftSection={<IconShieldCheck size={16} aria-hidden />} onClick={() => void accept()} loading={saving}>
              {t('messenger.safety.markVerified')}
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}
