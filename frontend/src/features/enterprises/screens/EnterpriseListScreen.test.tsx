import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeEnterprise, makeUser, page } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

beforeEach(() => session.start('token', makeUser('PlatformAdmin')));

const acme = makeEnterprise({ id: 'acme', name: 'Acme Corp', createdAt: '2026-02-10T12:00:00Z' });
const beta = makeEnterprise({ id: 'beta', name: 'Beta Inc', isActive: false, ceo: null });

describe('the enterprise list', () => {
  it('lists name, CEO, status and creation date; rows lead to the detail', async () => {
    mockApi({ 'GET /api/v1/enterprises': jsonResponse(200, page([acme, beta])) });
    renderApp('/admin/enterprises');

    const link = await screen.findByRole('link', { name: 'Acme Corp' });
    expect(link).toHaveAttribute('href', '/admin/enterprises/acme');
    const [, acmeRow, betaRow] = screen.getAllByRole('row');
    expect(acmeRow).toHaveTextContent('Cora Ceo');
    expect(acmeRow).toHaveTextContent('cora@acme.test');
    expect(acmeRow).toHaveTextContent('Active');
    expect(acmeRow).toHaveTextContent('Feb 10, 2026');
    expect(betaRow).toHaveTextContent('No CEO');
    expect(betaRow).toHaveTextContent('Inactive');
    expect(screen.getByText('Showing 1–2 of 2')).toBeInTheDocument();
  });

  it('searches once typing pauses, filters by status and pages, all through the URL', async () => {
    const { calls } = mockApi({
      'GET /api/v1/enterprises': ({ url }) => jsonResponse(200, page([acme], 45, 20, Number(url.searchParams.get('page')))),
    });
    const user = userEvent.setup();
    const { location } = renderApp('/admin/enterprises');
    await screen.findByRole('link', { name: 'Acme Corp' });

    await user.type(screen.getByLabelText('Search'), 'acm');
    await waitFor(() => expect(location().search).toBe('?q=acm'));
    // One request for the whole word, none per keystroke.
    await waitFor(() =>
      expect(calls.filter((call) => call.path.includes('q=')).map((call) => call.path)).toEqual(['/api/v1/enterprises?q=acm&page=1&pageSize=20']),
    );

    await user.click(screen.getByRole('radio', { name: 'Inactive' }));
    await waitFor(() => expect(calls.at(-1)?.path).toBe('/api/v1/enterprises?q=acm&active=false&page=1&pageSize=20'));

    const pages = screen.getByRole('navigation', { name: 'Enterprise list pages' });
    await user.click(within(pages).getByRole('button', { name: 'Page 3' }));
    await waitFor(() => expect(calls.at(-1)?.path).toBe('/api/v1/enterprises?q=acm&active=false&page=3&pageSize=20'));
    expect(location().search).toBe('?q=acm&status=inactive&page=3');
    expect(await screen.findByText('Showing 41–45 of 45')).toBeInTheDocument();
  });

  it('has empty states: none yet, and none matching', async () => {
    mockApi({ 'GET /api/v1/enterprises': jsonResponse(200, page([])) });
    const user = userEvent.setup();
    renderApp('/admin/enterprises');
    expect(await screen.findByText('No enterprises yet')).toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: 'Active' }));
    expect(await screen.findByText('No enterprise matches these filters')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(await screen.findByText('No enterprises yet')).toBeInTheDocument();
  });
});
