import '@mantine/dates/styles.css';
import 'dayjs/locale/fr';
import { DateInput, type DateInputProps } from '@mantine/dates';
import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
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

type DateFieldProps = Omit<DateInputProps, 'value' | 'defaultValue' | 'onChange' | 'minDate' | 'maxDate' | 'valueFormat' | 'dateParser' | 'locale'> & {
  /** An ISO date (`YYYY-MM-DD`), or '' for none. */
  value?: string;
  /** Gets an ISO date, or '' once the field is emptied. */
  onChange: (value: string) => void;
  min?: string;
  max?: string;
};

/**
 * A date field written and read in the interface language (dd/mm/yyyy in French, mm/dd/yyyy in
 * English, whatever the browser's own language), with a calendar in that language; its value is
 * an ISO date, as the API takes it. Mantine's DateInput (@mantine/dates and dayjs load with the
 * screens that have a date field, not before).
 */
export function DateField({ value, onChange, min, max, ...props }: DateFieldProps) {
  const { t } = useTranslation();
  const locale = currentLocale();
  return (
    <DateInput
      key={locale}
      locale={locale}
      valueFormat={DAY_FORMATS[locale]}
      dateParser={(text) => parseDay(text, locale)}
      placeholder={t('common.dateFormat')}
      firstDayOfWeek={locale === 'fr' ? 1 : 0}
      value={value || null}
      onChange={(next) => onChange(next ? dayjs(next).format(ISO_DAY) : '')}
      minDate={min || undefined}
      maxDate={max || undefined}
      allowDeselect
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
