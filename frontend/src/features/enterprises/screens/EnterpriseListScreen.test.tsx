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

describe('importing an enterprise', () => {
  const running = {
    id: 'imp1',
    status: 'running',
    progress: 40,
    stage: 'reports',
    createdAt: '2026-12-01T10:00:00Z',
    finishedAt: null,
    enterpriseName: 'Moved Co',
    enterpriseId: null,
    result: null,
    error: null,
  };
  const ready = {
    ...running,
    status: 'ready',
    progress: 100,
    stage: 'ready',
    enterpriseId: 'moved',
    result: {
      idsKept: true,
      counts: { people: 3, departments: 5, reports: 1, spreadsheets: 2, auditEvents: 40 },
      invited: 3,
      leftOut: [{ what: 'messenger', why: 'E2E' }],
    },
  };

  it('refuses a file that is not an archive at its field, then uploads one and follows it to what was made', async () => {
    let posts = 0;
    let reads = 0;
    const { fetchMock } = mockApi({
      'GET /api/v1/enterprises': jsonResponse(200, page([acme])),
      'POST /api/v1/enterprises/imports': () => {
        posts += 1;
        return posts === 1
          ? jsonResponse(400, {
              code: 'validation_failed',
              message: 'This file is not an enterprise archive: it is not a zip file',
              fields: { archive: 'invalid' },
            })
          : jsonResponse(202, { ...running, progress: 0, stage: 'checking' });
      },
      'GET /api/v1/enterprises/imports/imp1': () => {
        reads += 1;
        return jsonResponse(200, reads === 1 ? running : ready);
      },
    });
    const user = userEvent.setup();
    renderApp('/admin/enterprises');
    await screen.findByRole('link', { name: 'Acme Corp' });
    await user.click(screen.getByRole('button', { name: 'Import' }));
    const dialog = await screen.findByRole('dialog', { name: 'Import an enterprise' });

    // Nothing chosen: said at the field, nothing sent.
    await user.click(within(dialog).getByRole('button', { name: 'Import' }));
    expect(await within(dialog).findByText('Choose the archive to import.')).toBeInTheDocument();
    expect(posts).toBe(0);

    const input = dialog.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error('no file input');
    await user.upload(input, new File(['not a zip'], 'notes.zip', { type: 'application/zip' }));
    await user.click(within(dialog).getByRole('button', { name: 'Import' }));
    expect(await within(dialog).findByText('This file cannot be imported.')).toBeInTheDocument();
    expect(within(dialog).getByRole('alert')).toHaveTextContent('it is not a zip file');

    // Sent as multipart: the file as `archive`, and the invitations asked for.
    await user.upload(input, new File(['PK...'], 'moved.zip', { type: 'application/zip' }));
    await user.click(within(dialog).getByRole('button', { name: 'Import' }));
    const sent = fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST').at(-1)?.[1]?.body;
    expect(sent).toBeInstanceOf(FormData);
    expect((sent as FormData).get('archive')).toBeInstanceOf(File);
    expect((sent as FormData).get('invite')).toBe('true');

    expect(await within(dialog).findByText('40% · reports')).toBeInTheDocument();
    expect(await within(dialog).findByText('Moved Co was imported', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(within(dialog).getByText('3 people were e-mailed an invitation to choose a password.', { exact: false })).toBeInTheDocument();
    expect(within(dialog).getByText('40 audit entries')).toBeInTheDocument();
    expect(within(dialog).getByText(/The messenger: it is end-to-end encrypted/)).toBeInTheDocument();
    expect(within(dialog).getByRole('link', { name: 'Open the enterprise' })).toHaveAttribute('href', '/admin/enterprises/moved');
  });
});
