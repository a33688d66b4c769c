import { Button, type ButtonProps } from '@mantine/core';
import { IconChevronDown, IconLanguage } from '@tabler/icons-react';
import { type ComponentPropsWithRef, Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLocale } from '@/i18n';

const loadMenu = () => import('./LanguageMenu');
const LanguageMenu = lazy(loadMenu);

/** The button that opens the language menu; LanguageMenu makes it the menu's target. */
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

/**
 * The language switch. Its menu (Mantine's Menu, which brings Floating UI) is a chunk of its own,
 * fetched when the pointer or the focus reaches the button and shown on the first click: the
 * sign-in page does not load it for visitors who never change the language.
 */
export function LanguageSwitch() {
  const [wanted, setWanted] = useState(false);
  const button = <LanguageButton onPointerEnter={() => void loadMenu()} onFocus={() => void loadMenu()} onClick={() => setWanted(true)} />;
  if (!wanted) return button;
  return (
    <Suspense fallback={button}>
      <LanguageMenu openOnMount />
    </Suspense>
  );
}
