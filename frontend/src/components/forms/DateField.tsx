import '@mantine/dates/styles.css';
import 'dayjs/locale/fr';
import { DateInput, type DateInputProps } from '@mantine/dates';
import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import type { ParseKeys } from 'i18next';
import { type FocusEvent, type InputEvent, type KeyboardEvent, type MouseEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Locale, currentLocale } from '@/i18n';

dayjs.extend(customParseFormat);

/** How a day is written in each interface language. */
export const DAY_FORMATS: Record<Locale, string> = { en: 'MM/DD/YYYY', fr: 'DD/MM/YYYY' };
const ISO_DAY = 'YYYY-MM-DD';

/** A day typed in the interface language's format (or as an ISO date), as an ISO date; null if it is not one. */
export function parseDay(text: string, locale: Locale): string | null {
  const trimmed = text.trim();
  for (const format of [DAY_FORMATS[locale], ISO_DAY]) {
    const day = dayjs(trimmed, format, true);
    if (day.isValid()) return day.format(ISO_DAY);
  }
  return null;
}

// Three groups of digits, as a day is written (13/45/2026, 2026-02-30): a day that does not exist.
const DAY_SHAPE = /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$/;

/**
 * What is wrong with what was typed in a date field: null when it is empty or a day within
 * [min, max]; otherwise the message's key (a day that does not exist, a day out of bounds, or
 * something that is not written as a day at all).
 */
export function dayProblem(text: string, locale: Locale, min?: string, max?: string): ParseKeys | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const day = parseDay(trimmed, locale);
  if (day === null) return DAY_SHAPE.test(trimmed) ? 'validation.dateInvalid' : 'validation.dateFormat';
  if ((min && day < min) || (max && day > max)) return 'validation.dateOutOfRange';
  return null;
}

type DateFieldProps = Omit<
  DateInputProps,
  'value' | 'defaultValue' | 'onChange' | 'minDate' | 'maxDate' | 'valueFormat' | 'dateParser' | 'locale' | 'fixOnBlur'
> & {
  /** An ISO date (`YYYY-MM-DD`), or '' for none. */
  value?: string;
  /** Gets an ISO date, or '' once the field is emptied or holds what is not a day. */
  onChange: (value: string) => void;
  min?: string;
  max?: string;
};

/**
 * A date field written and read in the interface language (dd/mm/yyyy in French, mm/dd/yyyy in
 * English, whatever the browser's own language), with a calendar in that language; its value is
 * an ISO date, as the API takes it. Mantine's DateInput (@mantine/dates and dayjs load with the
 * screens that have a date field, not before).
 *
 * What is typed stays as typed: a day that does not exist (13/45/2026) is not put back to the
 * last good one on leaving the field, it stays with a message under it, and the value is ''
 * meanwhile (so a required field's form refuses to submit). The calendar is open while the field
 * is being written in, and closes once a day is picked or typed whole, on Escape and when the
 * focus leaves; Escape then closes only the calendar, not a modal the field is in.
 */
export function DateField({
  value,
  onChange,
  min,
  max,
  error,
  popoverProps,
  getDayProps,
  onFocus,
  onBlur,
  onClick,
  onKeyDown,
  onInput,
  readOnly,
  disabled,
  ...props
}: DateFieldProps) {
  const { t } = useTranslation();
  const locale = currentLocale();
  const [opened, setOpened] = useState(false);
  // What is typed while it is not a day (in the language it was typed in: a switch of language
  // shows the field anew), and whether the person has left the field since (the message shows then).
  const [typed, setTyped] = useState<{ text: string; locale: Locale } | null>(null);
  const [left, setLeft] = useState(false);
  const problem = typed && typed.locale === locale && !value ? dayProblem(typed.text, locale, min, max) : null;
  const shownError = problem && (left || error) ? t(problem, { format: t('common.dateFormat') }) : error;
  const open = () => {
    if (!readOnly && !disabled) setOpened(true);
  };

  return (
    <DateInput
      key={locale}
      locale={locale}
      valueFormat={DAY_FORMATS[locale]}
      dateParser={(text) => parseDay(text, locale)}
      placeholder={t('common.dateFormat')}
      firstDayOfWeek={locale === 'fr' ? 1 : 0}
      value={value || null}
      onChange={(next) => {
        // A day set, or none (emptied, cleared, the day picked again): nothing wrong is typed.
        setTyped(null);
        onChange(next ? dayjs(next).format(ISO_DAY) : '');
      }}
      minDate={min || undefined}
      maxDate={max || undefined}
      fixOnBlur={false}
      allowDeselect
      readOnly={readOnly}
      disabled={disabled}
      error={shownError}
      // Escape while the calendar is open is the calendar's: a surrounding modal leaves it alone.
      data-mantine-stop-propagation={opened || undefined}
      popoverProps={{ ...popoverProps, opened, onChange: setOpened }}
      getDayProps={(day) => {
        const dayProps = getDayProps?.(day);
        return {
          ...dayProps,
          onClick: (event: MouseEvent<HTMLButtonElement>) => {
            dayProps?.onClick?.(event);
            setTyped(null);
            setOpened(false);
          },
        };
      }}
      onInput={(event: InputEvent<HTMLInputElement>) => {
        onInput?.(event);
        const text = event.currentTarget.value;
        setTyped({ text, locale });
        setLeft(false);
        const complete = text.trim() !== '' && dayProblem(text, locale, min, max) === null;
        // A day typed whole is picked: the calendar gives way to the fields and buttons below.
        if (complete) setOpened(false);
        else open();
        // Not a day (yet): the field holds none. Mantine's DateInput sets the day when it is one.
        if (!complete && text.trim() !== '' && value) onChange('');
      }}
      onFocus={(event: FocusEvent<HTMLInputElement>) => {
        onFocus?.(event);
        open();
      }}
      onClick={(event: MouseEvent<HTMLInputElement>) => {
        onClick?.(event);
        open();
      }}
      onBlur={(event: FocusEvent<HTMLInputElement>) => {
        onBlur?.(event);
        setOpened(false);
        setLeft(true);
      }}
      onKeyDown={(event: KeyboardEvent<HTMLInputElement>) => {
        onKeyDown?.(event);
        if (event.key === 'Escape' && opened) {
          setOpened(false);
          event.stopPropagation();
        }
      }}
      ariaLabels={{
        previousMonth: t('common.previousMonth'),
        nextMonth: t('common.nextMonth'),
        previousYear: t('common.previousYear'),
        nextYear: t('common.nextYear'),
        previousDecade: t('common.previousDecade'),
        nextDecade: t('common.nextDecade'),
      }}
      {...props}
    />
  );
}
