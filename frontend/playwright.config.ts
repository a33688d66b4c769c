import { fileURLToPath } from 'node:url';
import { defineConfig, devices } from '@playwright/test';
import { serverLogDir } from './e2e/server-log';

// Contract with scripts/test.sh: the SPA is built into dist/, the backend binary is built, the
// database at DATABASE_URL is migrated and holds the admin E2E_ADMIN_EMAIL / E2E_ADMIN_PASSWORD.
// OIDC_ISSUER, the tests' OpenID provider (scripts/oidc/start.sh), reaches the specs as it is (the
// workers inherit the environment): they give it to the enterprises' single sign-on settings; the
// server needs nothing of it.
const port = process.env.E2E_PORT ?? '8181';
const baseURL = `http://127.0.0.1:${port}`;
const backendBin = process.env.E2E_BACKEND_BIN ?? '../target/debug/backend';
const staticDir = fileURLToPath(new URL('./dist', import.meta.url));
// MaxMind's test database: e2e/monitoring.spec.ts signs in "from" its addresses (X-Forwarded-For,
// trusted from the loopback peer) and finds the sessions at their places.
const geoipDatabase = fileURLToPath(new URL('../backend/tests/data/GeoLite2-City-Test.mmdb', import.meta.url));

// Debian's Chromium: Playwright's own browser downloads are not available here.
const chromium = {
  ...devices['Desktop Chrome'],
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  },
};

export default defineConfig({
  testDir: './e2e',
  // Run by playwright.balanced.config.ts only: they need two instances behind nginx.
  testIgnore: /\/e2e\/balanced\//,
  // Three spec files at a time, each file's tests in order. Each file makes its own enterprises
  // and people (names carry a run id) and platform-wide screens are searched, not paged. A test
  // mostly waits (the app, the server, a transition): one worker left the 2 cores idle a third of
  // the time, and three take the whole run from 15.2 to about 8.8 minutes (docs/performance.md).
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 3),
  // A test.only must never pass unnoticed, and a flaky test is a bug to fix, not to retry.
  forbidOnly: true,
  retries: 0,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  // A budget, not a measure: the long flows (a passkey registered, renamed, used three ways and
  // removed) took over 30 s on a CI machine 1.6 times slower than another.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL,
    locale: 'en-US',
    // Off unless asked for (E2E_TRACE=retain-on-failure): recording every test's trace (a
    // screencast and DOM snapshots) cost 12% of the run. A failure keeps its screenshot, its page
    // as text (error-context.md) and the server's log.
    trace: (process.env.E2E_TRACE as 'off' | 'on' | 'retain-on-failure' | undefined) ?? 'off',
    screenshot: 'only-on-failure',
  },
  projects: [{ name: 'chromium', use: chromium }],
  // The servers' logs are kept and read after the run (e2e/server-log.ts): an error, a panic or
  // a 5xx answer fails it.
  globalTeardown: './e2e/server-log.ts',
  webServer: {
    command: `exec "${backendBin}" serve > "${serverLogDir}/server-$BIND_ADDR.log" 2>&1`,
    url: `${baseURL}/healthz`,
    // DATABASE_URL, REDIS_URL, JWT_SECRET (and REDIS_PREFIX) are inherited. JSON lines, with
    // each request's status, into the run's log directory.
    env: {
      LOG_FORMAT: 'json',
      BIND_ADDR: `127.0.0.1:${port}`,
      STATIC_DIR: staticDir,
      TRUSTED_PROXIES: '127.0.0.1',
      GEOIP_DATABASE: geoipDatabase,
      // e2e/webhooks.spec.ts delivers to a receiver of its own on the loopback, over plain http.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // E-mail (SMTP_URL, the catcher's, is inherited): links point at this server, activity is
      // batched for 2 s rather than a minute, and retries after a failure come a hundred times sooner.
      PUBLIC_URL: baseURL,
      MAIL_DIGEST_SECS: '2',
      MAIL_RETRY_SCALE: '0.01',
      RUST_LOG: process.env.RUST_LOG ?? 'warn,backend::app=info',
      // Spec files sign the shared admin in at the same time, and two of them get its password
      // wrong on purpose: a sign-in counts against its account and address until it succeeds,
      // so five at once could meet the limit of 5 (the limiter has its own API tests).
      LOGIN_MAX_FAILURES: '20',
    },
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'ignore',
  },
});
