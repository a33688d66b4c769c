import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The balanced end-to-end run (playwright.balanced.config.ts): two `backend serve` instances on
 * the same PostgreSQL, Redis (and key prefix) and JWT secret, behind nginx on a port of its own.
 * E2E_BALANCED_PORT moves the balancer; the instances take the next two ports.
 */
const balancerPort = Number(process.env.E2E_BALANCED_PORT ?? '8190');

export const balancer = { port: balancerPort, url: `http://127.0.0.1:${balancerPort}` };

/** The instances, as nginx names them in `X-Upstream` and in its access log (`host:port`). */
export const instances = [1, 2].map((offset) => {
  const address = `127.0.0.1:${balancerPort + offset}`;
  return { address, url: `http://${address}` };
});

/** nginx's working folder: its generated configuration, pid file, temp files and access log. */
export const balancerDir = join(tmpdir(), `enterprise-platform-balancer-${balancerPort}`);
export const accessLog = join(balancerDir, 'access.log');
