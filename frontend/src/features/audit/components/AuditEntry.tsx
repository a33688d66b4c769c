import { Badge, Button, Code, Group, Stack, Table, Text } from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconFilter } from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import { type ReactNode, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AuditEvent } from '@/api/generated/model';
import { EnterpriseName } from '@/components/enterprises/EnterpriseName';
import { actionParts } from '../actions';
import { auditSentence, changeRows } from '../sentence';
import classes from './AuditLog.module.css';

const ACTOR_TYPES = ['user', 'token', 'system'] as const;
const isActorType = (value: string): value is (typeof ACTOR_TYPES)[number] => (ACTOR_TYPES as readonly string[]).includes(value);

const regionNames = new Map<string, Intl.DisplayNames | null>();

/** "London, GB" with its country named in the interface language ("London, Royaume-Uni"). */
function placeText(place: string, locale: string): string {
  const match = /^(.*?)(?:,\s*)?\b([A-Z]{2})$/.exec(place.trim());
  if (!match) return place;
  if (!regionNames.has(locale)) {
    try {
      regionNames.set(locale, new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' }));
    } catch {
      regionNames.set(locale, null);
    }
  }
  const country = regionNames.get(locale)?.of(match[2]) ?? match[2];
  return match[1] ? `${match[1]}, ${country}` : country;
}

type AuditEntryProps = {
  event: AuditEvent;
  /** The platform admin's view names each entry's enterprise. */
  showEnterprise: boolean;
  enterpriseNames: ReadonlyMap<string, string>;
  /** Narrows the log to this actor's or this target's entries. */
  onFilter: (patch: { actor?: string; target?: string }) => void;
};

function Detail({ label, children, wide = false }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? classes.wide : undefined}>
      <Text component="dt" size="xs" c="dimmed">
        {label}
      </Text>
      <Text component="dd" size="sm" className={classes.wrap}>
        {children}
      </Text>
    </div>
  );
}

/**
 * One entry: what happened as a sentence, when (to the second) and from where; the details (who
 * and what exactly, the address, the browser, the changes) open below it.
 */
export function AuditEntry({ event, showEnterprise, enterpriseNames, onFilter }: AuditEntryProps) {
  const { t, i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? 'en';
  const [open, setOpen] = useState(false);
  const id = useId();
  const sentence = auditSentence(event, t);
  const at = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(event.at));
  const place = event.place ? placeText(event.place, locale) : null;
  const where = [place, event.ip].filter(Boolean).join(' · ');
  const known = actionParts(event.action);
  const rows = changeRows(event, t);
  const actorType = isActorType(event.actor.type) ? t(`audit.actorTypes.${event.actor.type}`) : event.actor.type;

  return (
    <li className={classes.entry} data-testid="audit-entry">
      <Group justify="space-between" align="flex-start" gap="sm" wrap="nowrap">
        <Stack gap={4} className={classes.wrap} style={{ flex: 1 }}>
          <Text fw={500} id={`${id}-sentence`} className={classes.wrap} data-testid="audit-sentence">
            {sentence}
          </Text>
          <Group gap="xs" wrap="wrap">
            <Text size="xs" c="dimmed" component="time" dateTime={event.at}>
              {at}
            </Text>
            {where && (
              <Text size="xs" c="dimmed" className={classes.wrap} data-testid="audit-where">
                {where}
              </Text>
            )}
            {event.actor.type === 'token' && (
              <Badge size="xs" variant="light" color="grape" style={{ textTransform: 'none' }}>
                {t('audit.entry.viaToken')}
              </Badge>
            )}
            {showEnterprise && (
              <Text size="xs" span>
                {event.enterpriseId ? (
                  <EnterpriseName id={event.enterpriseId} names={enterpriseNames} />
                ) : (
                  <Text span size="xs" c="dimmed">
                    {t('audit.entry.platform')}
                  </Text>
                )}
              </Text>
            )}
          </Group>
        </Stack>
        <Button
          variant="subtle"
          size="xs"
          rightSection={open ? <IconChevronUp size={14} aria-hidden /> : <IconChevronDown size={14} aria-hidden />}
          aria-expanded={open}
          aria-controls={`${id}-details`}
          aria-describedby={`${id}-sentence`}
          onClick={() => setOpen((value) => !value)}
          style={{ flexShrink: 0 }}
        >
          {t('audit.entry.details')}
        </Button>
      </Group>
      <dl className={classes.details} id={`${id}-details`} hidden={!open} data-testid="audit-details">
        <Detail label={t('audit.entry.action')}>
          {known ? `${t(`audit.actions.${known.area}.${known.verb}` as ParseKeys)} · ` : ''}
          <Code>{event.action}</Code>
        </Detail>
        <Detail label={t('audit.entry.actor')}>
          <Stack gap={2} align="flex-start" component="span">
            <span>
              {event.actor.name ?? '—'} · {actorType}
            </span>
            {event.actor.id && (
              <Group gap="xs" wrap="wrap" component="span">
                <Code>{event.actor.id}</Code>
                <Button
                  variant="subtle"
                  size="compact-xs"
                  leftSection={<IconFilter size={12} aria-hidden />}
                  onClick={() => onFilter({ actor: event.actor.id! })}
                >
                  {t('audit.entry.onlyActor')}
                </Button>
              </Group>
            )}
          </Stack>
        </Detail>
        {(event.targetType || event.targetId || event.targetName) && (
          <Detail label={t('audit.entry.target')}>
            <Stack gap={2} align="flex-start" component="span">
              <span>{[event.targetName, event.targetType].filter(Boolean).join(' · ')}</span>
              {event.targetId && (
                <Group gap="xs" wrap="wrap" component="span">
                  <Code>{event.targetId}</Code>
                  <Button
                    variant="subtle"
                    size="compact-xs"
                    leftSection={<IconFilter size={12} aria-hidden />}
                    onClick={() => onFilter({ target: event.targetId! })}
                  >
                    {t('audit.entry.onlyTarget')}
                  </Button>
                </Group>
              )}
            </Stack>
          </Detail>
        )}
        <Detail label={t('audit.entry.place')}>{place ?? t('audit.entry.unknownPlace')}</Detail>
        <Detail label={t('audit.entry.ip')}>{event.ip ?? '—'}</Detail>
        <Detail label={t('audit.entry.userAgent')} wide>
          {event.userAgent ?? '—'}
        </Detail>
        <Detail label={t('audit.entry.changes')} wide>
          {rows.length === 0 ? (
            t('audit.entry.noChanges')
          ) : (
            <Table.ScrollContainer minWidth={320}>
              <Table withTableBorder verticalSpacing={4} fz="sm" data-testid="audit-changes">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">{t('audit.entry.field')}</Table.Th>
                    <Table.Th scope="col">{t('audit.entry.change')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((row) => (
                    <Table.Tr key={row.key}>
                      <Table.Th scope="row" fw={500}>
                        {row.field}
                      </Table.Th>
                      <Table.Td className={classes.wrap}>{row.value ?? `${row.before} → ${row.after}`}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </Detail>
        <Detail label={t('audit.entry.id')} wide>
          <Code>{event.id}</Code>
        </Detail>
      </dl>
    </li>
  );
}
