import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { i18n } from '@/i18n';
import { setNavigator } from '@/lib/navigation';
import { session } from '@/lib/session';

// jsdom lacks these; Mantine uses them.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver;
Element.prototype.scrollIntoView ??= () => {};

// Unmount first, so that resetting the session and the language re-renders nothing.
afterEach(async () => {
  cleanup();
  await i18n.changeLanguage('en');
  session.end('signed_out');
  window.localStorage.clear();
  setNavigator(null);
});
