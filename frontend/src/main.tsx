import { localeReady } from './i18n';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';

// A French visitor waits for the French strings (one small chunk) rather than seeing English flash.
void localeReady.finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
