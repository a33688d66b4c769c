import { ActionIcon, Group, Text, Textarea, Tooltip } from '@mantine/core';
import { IconSend } from '@tabler/icons-react';
import { type FormEvent, type KeyboardEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '@/lib/format';
import { MAX_MESSAGE_LENGTH } from '../hooks';
import classes from './messages.module.css';

/** The counter shows from this many characters left. */
const COUNTER_FROM = 500;

type ComposerProps = {
  onSend: (text: string) => void;
  /** The user typed (the caller tells the others, at most every few seconds). */
  onTyping: () => void;
  disabled?: boolean;
};

/** Enter sends, Shift+Enter starts a new line; at most 10,000 characters, with a counter near the limit. */
export function Composer({ onSend, onTyping, disabled = false }: ComposerProps) {
  const { t } = useTranslation();
  const { number } = useFormat();
  const [text, setText] = useState('');
  const hintId = useId();
  const remaining = MAX_MESSAGE_LENGTH - text.length;

  const send = () => {
    const value = text.trim();
    if (!value || disabled) return;
    onSend(value);
    setText('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };

  return (
    <form onSubmit={onSubmit} className={classes.composer}>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <Textarea
          style={{ flex: 1 }}
          aria-label={t('messenger.composer.label')}
          aria-describedby={hintId}
          placeholder={t('messenger.composer.placeholder')}
          autosize
          minRows={1}
          maxRows={6}
          maxLength={MAX_MESSAGE_LENGTH}
          value={text}
          disabled={disabled}
          onChange={(event) => {
            setText(event.currentTarget.value);
            if (event.currentTarget.value) onTyping();
          }}
          onKeyDown={onKeyDown}
        />
        <Tooltip label={t('messenger.composer.send')}>
          <ActionIcon type="submit" size={36} aria-label={t('messenger.composer.send')} disabled={disabled || text.trim() === ''}>
            <IconSend size={18} aria-hidden />
          </ActionIcon>
        </Tooltip>
      </Group>
      <Group justify="space-between" gap="xs" mt={4}>
        <Text size="xs" c="dimmed" id={hintId}>
          {t('messenger.composer.hint')}
        </Text>
        {remaining <= COUNTER_FROM && (
          <Text size="xs" c={remaining <= 50 ? 'red' : 'dimmed'} aria-live="polite" data-testid="composer-counter">
            {t('messenger.composer.remaining', { count: remaining, formatted: number(remaining) })}
          </Text>
        )}
      </Group>
    </form>
  );
}
