import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeUser, page, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

beforeEach(() => session.start('token', makeUser('PlatformAdmin')));

const row = (id: string, name: string, extra: object = {}) => ({
  enterpriseId: id,
  name,
  isActive: true,
  people: 3,
  activeSessions: 1,
  storageBytes: 2_500_000,
  spreadsheetBytes: 40_000,
  exportBytes: 0,
  apiCalls: 120,
  emails: 4,
  exports: 1,
  signIns: 9,
  limits: {},
  ...extra,
});

describe("the admin's usage by enterprise", () => {
  it('shows each enterprise against its limits and sorts on the server by the column clicked, both ways', async () => {
    const { calls } = mockApi({
      'GET /api/v1/admin/dashboard': serverErrors.internal(),
      'GET /api/v1/admin/statistics': serverErrors.internal(),
      'GET /api/v1/platform/security-policy': jsonResponse(200, { mfaRequiredRoles: [] }),
      'GET /api/v1/enterprises/usage': jsonResponse(
        200,
        page([row('acme', 'Acme Corp', { people: 12, limits: { people: 50, storageBytes: 10_000_000 } }), row('beta', 'Beta Inc', { isActive: false })]),
      ),
    });
    const user = userEvent.setup();
    renderApp('/admin');
    const region = await screen.findByRole('region', { name: 'Usage by enterprise' });
    const table = await within(region).findByRole('table', { name: 'Usage by enterprise' });
    const [, acme, beta] = within(table).getAllByRole('row');
    expect(within(acme).getByRole('link', { name: 'Acme Corp' })).toHaveAttribute('href', '/admin/enterprises/acme');
    expect(acme).toHaveTextContent('12 of 50');
    expect(acme).toHaveTextContent('2.5 MB of 10 MB');
    expect(beta).toHaveTextContent('Inactive');
    // Largest storage first by default, over the last 30 days.
    expect(calls.find((call) => call.path.startsWith('/api/v1/enterprises/usage'))?.path).toBe(
      '/api/v1/enterprises/usage?sort=storageBytes&order=desc&days=30&page=1&pageSize=20',
    );
    expect(within(table).getByRole('columnheader', { name: 'Storage' })).toHaveAttribute('aria-sort', 'descending');

    await user.click(within(table).getByRole('button', { name: 'API calls' }));
    await waitFor(() => expect(calls.at(-1)?.path).toBe('/api/v1/enterprises/usage?sort=apiCalls&order=desc&days=30&page=1&pageSize=20'));
    expect(within(table).getByRole('columnheader', { name: 'API calls' })).toHaveAttribute('aria-sort', 'descending');
    expect(within(table).getByRole('columnheader', { name: 'Storage' })).toHaveAttribute('aria-sort', 'none');
    await user.click(within(table).getByRole('button', { name: 'API calls' }));
    await waitFor(() => expect(calls.at(-1)?.path).toBe('/api/v1/enterprises/usage?sort=apiCalls&order=asc&days=30&page=1&pageSize=20'));
    // Names start from A; the period changes the counts.
    await user.click(within(table).getByRole('button', { name: 'Enterprise' }));
    await waitFor(() => expect(calls.at(-1)?.path).toBe('/api/v1/enterprises/usage?sort=name&order=asc&days=30&page=1&pageSize=20'));
    // The dashboard's one period control sets the counts' period too.
    await user.click(within(screen.getByRole('radiogroup', { name: 'Period' })).getByRole('radio', { name: '7 days' }));
    await waitFor(() =>
      expect(calls.filter((call) => call.path.startsWith('/api/v1/enterprises/usage')).at(-1)?.path).toBe(
        '/api/v1/enterprises/usage?sort=name&order=asc&days=7&page=1&pageSize=20',
      ),
    );
    expect(region).toHaveTextContent('what it did over the last 7 days (UTC)');
  });

  it('says so when there is no enterprise, and offers a retry when the usage cannot be read', async () => {
    let calls = 0;
    mockApi({
      'GET /api/v1/admin/dashboard': serverErrors.internal(),
      'GET /api/v1/admin/statistics': serverErrors.internal(),
      'GET /api/v1/platform/security-policy': jsonResponse(200, { mfaRequiredRoles: [] }),
      'GET /api/v1/enterprises/usage': () => {
        calls += 1;
        return calls === 1 ? serverErrors.internal() : jsonResponse(200, page([]));
      },
    });
    const user = userEvent.setup();
    renderApp('/admin');
    const region = await screen.findByRole('region', { name: 'Usage by enterprise' });
    await user.click(await within(region).findByRole('button', { name: /Try again|Retry/ }));
    expect(await within(region).findByText('No enterprise yet')).toBeInTheDocument();
  });
});
