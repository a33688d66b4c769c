import { Menu } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { LOCALES, type Locale, changeLocale, currentLocale } from '@/i18n';
import { saveLocaleToAccount } from '@/lib/account-locale';
import { LanguageButton } from './LanguageButton';

/** The language menu; LanguageSwitch loads it lazily and mounts it when the button is first clicked. */
export default function LanguageMenu({ openOnMount = false }: { openOnMount?: boolean }) {
  const { t } = useTranslation();
  const active = currentLocale();
  const target = useRef<HTMLButtonElement>(null);

  // This button replaces the one that was clicked: take the focus over (so that closing the menu
  // returns it here) and open the menu as that click asked.
  useEffect(() => {
    if (!openOnMount) return;
    target.current?.focus();
    target.current?.click();
  }, [openOnMount]);

  // The interface switches at once; a signed-in person's account keeps the choice too, unwaited.
  const choose = (locale: Locale) => {
    void changeLocale(locale);
    saveLocaleToAccount(locale);
  };

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <LanguageButton ref={target} />
      </Menu.Target>
      <Menu.Dropdown>
        {LOCALES.map((locale) => (
          <Menu.Item key={locale} lang={locale} onClick={() => choose(locale)} rightSection={locale === active ? <IconCheck size={14} aria-hidden /> : null}>
            {t(`language.${locale}`)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
