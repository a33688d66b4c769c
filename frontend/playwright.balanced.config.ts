import { defineConfig } from '@playwright/test';
import { accessLog, balancer, balancerDir, instances } from './e2e/balanced/topology';
import main from './playwright.config';

// The user flows again, with two server instances behind nginx (round robin, WebSockets passed
// through, X-Forwarded-For added by the balancer and trusted by the servers): sign-in, reports,
// monitoring, the messenger, then a session ended on one instance that must be dead on the other,
// and a check of nginx's access log that both instances served the flows.
// Same contract with scripts/test.sh as playwright.config.ts (DATABASE_URL, REDIS_URL,
// REDIS_PREFIX, JWT_SECRET, the admin), whose settings this reuses; nginx from Debian's package.
process.env.E2E_BALANCER_LOG = accessLog;

const server = Array.isArray(main.webServer) ? main.webServer[0] : main.webServer;
if (!server) throw new Error('playwright.config.ts starts no server');
const flows = /\/e2e\/(auth|reports|monitoring|messages)\.spec\.ts$/;

export default defineConfig({
  ...main,
  testIgnore: [],
  outputDir: 'test-results/balanced',
  // Two debug servers, nginx and the browser share the machine's cores: whole flows get longer.
  timeout: 60_000,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never', outputFolder: 'playwright-report/balanced' }]] : 'list',
  use: { ...main.use, baseURL: balancer.url },
  projects: [
    {
      name: 'balanced',
      testMatch: [flows, /\/e2e\/balanced\/across-instances\.spec\.ts$/],
      // The reports flow once, in English: the French run of it tests the translation, not the balancing.
      grepInvert: /reports \(fr\)/,
      use: main.projects![0]!.use,
    },
    // After every flow: what nginx saw.
    { name: 'spread', testMatch: /\/e2e\/balanced\/spread\.spec\.ts$/, dependencies: ['balanced'], use: main.projects![0]!.use },
  ],
  webServer: [
    ...instances.map((instance, i) => ({
      ...server,
      name: `instance ${i + 1}`,
      url: `${instance.url}/healthz`,
      env: { ...server.env, BIND_ADDR: instance.address },
    })),
    {
      name: 'nginx',
      command: `bash e2e/balanced/nginx.sh "${balancerDir}" ${balancer.port} ${instances.map((i) => i.address).join(' ')}`,
      url: `${balancer.url}/healthz`,
      reuseExistingServer: false,
      timeout: 10_000,
      stdout: 'pipe',
      stderr: 'pipe',
    },
  ],
});
