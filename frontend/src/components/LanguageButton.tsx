import { Button, type ButtonProps } from '@mantine/core';
import { IconChevronDown, IconLanguage } from '@tabler/icons-react';
import type { ComponentPropsWithRef } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLocale } from '@/i18n';

/**
 * The button that opens the language menu: LanguageSwitch shows it until the menu is wanted, and
 * LanguageMenu makes it the menu's target. Both import it from here, so neither imports the other
 * back (LanguageSwitch loads LanguageMenu lazily).
 */
export function LanguageButton(props: ButtonProps & ComponentPropsWithRef<'button'>) {
  const { t } = useTranslation();
  const active = currentLocale();
  return (
    <Button
      variant="subtle"
      color="gray"
      size="compact-sm"
      leftSection={<IconLanguage size={16} aria-hidden />}
      rightSection={<IconChevronDown size={14} aria-hidden />}
      aria-label={t('language.label', { language: t(`language.${active}`), code: active.toUpperCase() })}
      aria-haspopup="menu"
      aria-expanded={false}
      // Never squeezed by its neighbours (a long name in the header): "FR" stays whole.
      style={{ flexShrink: 0 }}
      {...props}
    >
      {active.toUpperCase()}
    </Button>
  );
}
