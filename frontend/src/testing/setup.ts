import '@testing-library/jest-dom/vitest';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { i18n } from '@/i18n';
import { setNavigator } from '@/lib/navigation';
import { session } from '@/lib/session';

// Screens load lazily and answer after mocked requests. A file's first test also waits for its
// screen's modules to be transformed and imported: beside the API tests and clippy on 2 cores,
// the monitoring screen's first two tests missed 5 s in CI (and the webhooks screen's first one
// before). A deadline for a condition, not a wait: a passing test takes no longer for it.
configure({ asyncUtilTimeout: 15_000 });

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
// Textarea's autosize listens for web fonts loading.
if (!('fonts' in document)) {
  Object.defineProperty(document, 'fonts', {
    value: { addEventListener: () => {}, removeEventListener: () => {}, ready: Promise.resolve() },
  });
}

// Screen tests have no server to hold a socket open: the real-time client gets a socket that
// never connects (lib/realtime.test.ts drives the client itself).
class SilentWebSocket {
  onopen = null;
  onmessage = null;
  onclose = null;
  send() {}
  close() {}
}
Object.defineProperty(window, 'WebSocket', { writable: true, value: SilentWebSocket });

// Unmount first, so that resetting the session and the language re-renders nothing.
afterEach(async () => {
  cleanup();
  // Mantine keeps toasts and modals in module-level stores: start each test without them.
  notifications.clean();
  notifications.cleanQueue();
  modals.closeAll();
  await i18n.changeLanguage('en');
  session.end('signed_out');
  window.localStorage.clear();
  window.sessionStorage.clear();
  setNavigator(null);
});
