import { Suspense, lazy, useState } from 'react';
import { LanguageButton } from './LanguageButton';

const loadMenu = () => import('./LanguageMenu');
const LanguageMenu = lazy(loadMenu);

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
