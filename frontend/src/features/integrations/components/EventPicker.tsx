import { Checkbox, Code, Fieldset, Input, SimpleGrid, Stack, Text } from '@mantine/core';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { ALL_EVENTS, EVENT_AREAS, EVENT_GROUPS, type EventArea, eventParts, toggleEvents } from '../webhook-events';

type EventPickerProps = {
  value: readonly string[];
  onChange: (next: string[]) => void;
  /** Already translated. */
  error?: string;
};

/** A box that checks or unchecks a set of events: checked when all are, half-checked when some are. */
function SetCheckbox({
  label,
  chosen,
  events,
  onChange,
}: {
  label: string;
  chosen: readonly string[];
  events: readonly string[];
  onChange: (next: string[]) => void;
}) {
  const count = events.filter((event) => chosen.includes(event)).length;
  return (
    <Checkbox
      label={label}
      styles={{ label: { fontWeight: 600 } }}
      checked={count === events.length}
      indeterminate={count > 0 && count < events.length}
      onChange={(event) => onChange(toggleEvents(chosen, events, event.currentTarget.checked))}
    />
  );
}

/**
 * The events a webhook hears, grouped by area: each area has a box that chooses all of its events,
 * and one box chooses every event. Each event shows its name as the receiver sees it.
 */
export function EventPicker({ value, onChange, error }: EventPickerProps) {
  const { t } = useTranslation();
  const id = useId();
  const describedBy = error ? `${id}-description ${id}-error` : `${id}-description`;

  const area = (name: EventArea) => (
    <Stack key={name} gap={6} data-testid={`event-area-${name}`}>
      <SetCheckbox label={t(`webhooks.areaAll.${name}`)} chosen={value} events={EVENT_GROUPS[name]} onChange={onChange} />
      <Stack gap={6} ps="lg">
        {EVENT_GROUPS[name].map((event) => {
          const { verb } = eventParts(event);
          return (
            <Checkbox
              key={event}
              label={t(`webhooks.events.${name}.${verb}` as 'webhooks.events.report.created')}
              description={<Code fz="xs">{event}</Code>}
              checked={value.includes(event)}
              onChange={(change) => onChange(toggleEvents(value, [event], change.currentTarget.checked))}
            />
          );
        })}
      </Stack>
    </Stack>
  );

  return (
    <Fieldset legend={t('webhooks.form.events')} variant="unstyled" aria-describedby={describedBy} data-testid="event-picker">
      <Text size="sm" c="dimmed" id={`${id}-description`} mb="xs">
        {t('webhooks.form.eventsDescription')}
      </Text>
      <Stack gap="sm">
        <SetCheckbox label={t('webhooks.allEvents')} chosen={value} events={ALL_EVENTS} onChange={onChange} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" verticalSpacing="md">
          {EVENT_AREAS.map(area)}
        </SimpleGrid>
      </Stack>
      {error && (
        <Input.Error id={`${id}-error`} mt={4}>
          {error}
        </Input.Error>
      )}
    </Fieldset>
  );
}
