import { defineConfig } from '@playwright/test';
import { accessLog, balancer, balancerDir, instances } from './e2e/balanced/topology';
import main from './playwright.config';

// Two server instances behind nginx (round robin, WebSockets passed through, X-Forwarded-For
// added by the balancer and trusted by the servers): what only two instances can prove. Sign-in
// and the messenger's flows through the balancer; a session ended on one instance dead on the
// other (token and open socket); an event published through one instance delivered to a socket
// on the other; then a check of nginx's access log that both instances served the flows.
// Same contract with scripts/test.sh as playwright.config.ts (DATABASE_URL, REDIS_URL,
// REDIS_PREFIX, JWT_SECRET, the admin), whose settings this reuses; nginx from Debian's package.
process.env.E2E_BALANCER_LOG = accessLog;

const server = Array.isArray(main.webServer) ? main.webServer[0] : main.webServer;
if (!server) throw new Error('playwright.config.ts starts no server');
// The messenger's flows (three browsers whose sockets and calls the balancer spreads over both
// instances) and sign-in; reports and monitoring prove nothing more behind a balancer than alone.
const flows = /\/e2e\/(auth|messages)\.spec\.ts$/;

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
