import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreateWebhook, UpdateWebhook, Webhook, WebhookDelivery, WebhookUrlRules } from '@/api/generated/model';
import { changeLocale } from '@/i18n';
import { session } from '@/lib/session';
import { type MockRequest, givenMembers, mockApi } from '@/testing/api-mock';
import { jsonResponse, makeEnterpriseDetail, makeUser, makeWebhook, makeWebhookDelivery, makeWebhookWithSecret, page } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const detail = makeEnterpriseDetail({ name: 'Acme Corp' });
const base = `/api/v1/enterprises/${detail.id}`;
const ceo = makeUser('EnterpriseCeo', { fullName: 'Cora Ceo', enterpriseId: detail.id });
const admin = makeUser('PlatformAdmin', { fullName: 'Ada Admin' });
const SECRET = 'whsec_C2VjcmV0LXNob3duLW9uY2UtZm9yLXRoaXMtdGVzdA';
const ROTATED = 'whsec_bmV3LXNlY3JldC1hZnRlci1yb3RhdGlvbg';

const books = makeWebhook({ id: '0190f3c2-0000-7000-8000-0000000009a1', url: 'https://books.example.com/hooks', description: 'Bookkeeping sync' });
const failing = makeWebhook({
  id: '0190f3c2-0000-7000-8000-0000000009a2',
  url: 'https://crm.example.com/in',
  description: '',
  events: ['user.created', 'user.updated', 'user.deactivated', 'user.deleted'],
  enabled: false,
  disabledReason: 'failing',
  failingSince: '2026-03-01T08:00:00Z',
});
const approvedDelivery = makeWebhookDelivery({ id: '0190f3c2-0000-7000-8000-0000000009d1', webhookId: books.id });
const failedDelivery = makeWebhookDelivery({
  id: '0190f3c2-0000-7000-8000-0000000009d2',
  webhookId: books.id,
  eventType: 'report.rejected',
  status: 'failed',
  attempts: 8,
  lastStatus: null,
  lastError: 'timeout',
  deliveredAt: null,
});

/** The addresses a production server takes (`GET /webhooks/url-rules`), and one that allows private networks. */
const PUBLIC_ONLY: WebhookUrlRules = { schemes: ['https'], ports: [443, 8443], privateNetworks: false };
const ANY_ADDRESS: WebhookUrlRules = { schemes: ['http', 'https'], ports: [], privateNetworks: true };

/** The webhooks as the server keeps them, with their deliveries; every answer the screen may ask for. */
function webhookServer(initial: Webhook[], deliveries: WebhookDelivery[] = [], urlRules = PUBLIC_ONLY) {
  let webhooks = [...initial];
  let sent = [...deliveries];
  const idOf = (request: MockRequest) => request.url.pathname.split('/')[4];
  const answers = {
    'GET /api/v1/webhooks': () => jsonResponse(200, page(webhooks)),
    'GET /api/v1/webhooks/url-rules': () => jsonResponse(200, urlRules),
    'POST /api/v1/webhooks': ({ body }: MockRequest) => {
      const { url, events, description } = body as CreateWebhook;
      if (url.startsWith('http://')) {
        return jsonResponse(400, { code: 'validation_failed', message: 'Webhook URLs must use https', fields: { url: 'invalid' } });
      }
      if (url.includes('10.0.0.')) {
        return jsonResponse(400, { code: 'validation_failed', message: 'Nothing may be sent to that host', fields: { url: 'invalid' } });
      }
      const made = makeWebhookWithSecret({ id: '0190f3c2-0000-7000-8000-0000000009a9', url, events, description: description ?? '', secret: SECRET });
      const { secret: _secret, ...listed } = made;
      webhooks = [listed, ...webhooks];
      return jsonResponse(201, made);
    },
    [`PUT /api/v1/webhooks/${books.id}`]: (request: MockRequest) => update(request),
    [`PUT /api/v1/webhooks/${failing.id}`]: (request: MockRequest) => update(request),
    [`DELETE /api/v1/webhooks/${books.id}`]: () => {
      webhooks = webhooks.filter((webhook) => webhook.id !== books.id);
      return new Response(null, { status: 204 });
    },
    [`POST /api/v1/webhooks/${books.id}/rotate-secret`]: () => jsonResponse(200, makeWebhookWithSecret({ ...books, secret: ROTATED })),
    [`POST /api/v1/webhooks/${books.id}/test`]: () => {
      const queued = makeWebhookDelivery({
        id: '0190f3c2-0000-7000-8000-0000000009d9',
        webhookId: books.id,
        eventType: 'webhook.test',
        status: 'delivered',
        createdAt: '2026-03-03T10:00:00Z',
        deliveredAt: '2026-03-03T10:00:01Z',
      });
      sent = [queued, ...sent];
      return jsonResponse(202, queued);
    },
    [`GET /api/v1/webhooks/${books.id}/deliveries`]: () => jsonResponse(200, page(sent)),
    [`POST /api/v1/webhooks/${books.id}/deliveries/${failedDelivery.id}/redeliver`]: () =>
      jsonResponse(202, { ...failedDelivery, status: 'pending', attempts: 0, nextAttemptAt: null }),
  };
  function update(request: MockRequest) {
    const id = idOf(request);
    const patch = request.body as UpdateWebhook;
    webhooks = webhooks.map((webhook) =>
      webhook.id === id
        ? {
            ...webhook,
            ...givenMembers(patch),
            disabledReason: patch.enabled === false ? 'manual' : patch.enabled === true ? null : webhook.disabledReason,
            failingSince: patch.enabled === true ? null : webhook.failingSince,
          }
        : webhook,
    );
    return jsonResponse(
      200,
      webhooks.find((webhook) => webhook.id === id),
    );
  }
  return answers;
}

/** What the CEO's Integrations screen also reads: the service credentials (none). */
const tokenAnswers = {
  [`GET ${base}/service-tokens`]: () => jsonResponse(200, page([])),
  [`GET ${base}/provisioning`]: () => jsonResponse(200, { scimDeletion: 'delete' }),
};

const webhooksSection = async () => (await screen.findByRole('heading', { level: 2, name: 'Webhooks' })).closest('section')!;
const row = (url: string) => screen.getAllByTestId('webhook-row').find((tr) => tr.textContent?.includes(url))!;

async function openForm(user: UserEvent) {
  await user.click(within(await webhooksSection()).getByRole('button', { name: 'New webhook' }));
  return screen.findByRole('dialog', { name: 'New webhook' });
}

async function rowAction(user: UserEvent, url: string, action: string) {
  await user.click(within(row(url)).getByRole('button', { name: `Actions for ${url}` }));
  await user.click(await screen.findByRole('menuitem', { name: action }));
}

// The screen's modules, transformed and imported before the first test: beside the API tests on
// two busy cores, a first test that also paid for them went past its 30 s budget in CI, and the
// next test ran beside its leftovers.
beforeAll(async () => {
  await import('@/features/integrations/screens/IntegrationsScreen');
}, 120_000);

describe("the CEO's webhooks, on Integrations", () => {
  it('lists none at first; a new one hears the events chosen (a whole area at once) and its secret is shown once', async () => {
    const { calls } = mockApi({ ...tokenAnswers, ...webhookServer([]) });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/integrations');

    const section = await webhooksSection();
    expect(await within(section).findByText('No webhooks yet')).toBeInTheDocument();
    expect(calls.map((call) => call.path)).toContain('/api/v1/webhooks?page=1&pageSize=20');

    const form = await openForm(user);
    // The server's rules for the address, said before anything is typed.
    expect(
      await within(form).findByText(
        "Where the events are sent: an https address on the public internet, on port 443 or 8443. Private and local addresses are refused, so that no webhook can reach into the platform's own network.",
      ),
    ).toBeInTheDocument();
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(within(form).getByText('This field is required')).toBeInTheDocument();
    expect(within(form).getByText('Choose at least one event')).toBeInTheDocument();
    expect(within(form).getByLabelText(/^URL/)).toHaveFocus();

    await user.type(within(form).getByLabelText(/^URL/), 'https://erp.example.com/events');
    await user.click(within(form).getByRole('checkbox', { name: 'All report events' }));
    expect(within(form).getByRole('checkbox', { name: 'Report approved' })).toBeChecked();
    await user.click(within(form).getByRole('checkbox', { name: 'Report deleted' }));
    // Some of the area: its box is half checked.
    expect(within(form).getByRole('checkbox', { name: 'All report events' })).toHaveAttribute('data-indeterminate', 'true');
    await user.click(within(form).getByRole('checkbox', { name: 'Session started' }));
    await user.type(within(form).getByLabelText(/^Description/), 'ERP sync');
    await user.click(within(form).getByRole('button', { name: 'Create' }));

    const shown = await screen.findByRole('dialog', { name: 'Copy the signing secret' });
    expect(within(shown).getByTestId('webhook-secret')).toHaveTextContent(SECRET);
    expect(shown).toHaveTextContent('This is the only time the secret is shown.');
    const post = calls.find((call) => call.method === 'POST')!;
    expect(post.path).toBe('/api/v1/webhooks');
    expect(post.body).toEqual({
      url: 'https://erp.example.com/events',
      events: ['report.created', 'report.submitted', 'report.reviewed', 'report.approved', 'report.rejected', 'session.started'],
      description: 'ERP sync',
    });
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await screen.findByText('https://erp.example.com/events')).toBeInTheDocument();
    expect(within(row('https://erp.example.com/events')).getByTestId('webhook-status')).toHaveTextContent('Active');
    expect(row('https://erp.example.com/events')).toHaveTextContent('Report created');
    expect(row('https://erp.example.com/events')).toHaveTextContent('Session started');
    expect(document.body).not.toHaveTextContent(SECRET);
  });

  it("shows the server's reason under the URL, in the reader's words when it has them", async () => {
    mockApi({ ...tokenAnswers, ...webhookServer([]) });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/integrations');

    const form = await openForm(user);
    const url = within(form).getByLabelText(/^URL/);
    await user.type(url, 'http://erp.example.com/events');
    await user.click(within(form).getByRole('checkbox', { name: 'User created' }));
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByText('Webhook URLs must use https.')).toBeInTheDocument();
    expect(url).toHaveAttribute('aria-invalid', 'true');
    expect(url).toHaveFocus();
    // Said at the fields, once: no second message above the form, no toast.
    expect(screen.queryByText('The webhook could not be created')).not.toBeInTheDocument();

    // A reason this client has no words for: the server's own.
    await user.clear(url);
    expect(within(form).queryByText('Webhook URLs must use https.')).not.toBeInTheDocument();
    await user.type(url, 'https://10.0.0.8/hook');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(await within(form).findByText('Nothing may be sent to that host')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Copy the signing secret' })).not.toBeInTheDocument();
  });

  it('says that any address is taken where the server allows private networks (development), and asks for http or https', async () => {
    const { calls } = mockApi({ ...tokenAnswers, ...webhookServer([], [], ANY_ADDRESS) });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/integrations');
    const form = await openForm(user);
    expect(
      await within(form).findByText(
        'Where the events are sent: an http or https address. This server also takes private and local addresses: it is set up for development.',
      ),
    ).toBeInTheDocument();
    await user.type(within(form).getByLabelText(/^URL/), 'erp.example.com');
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    expect(within(form).getByText('Enter a whole address, starting with http:// or https://')).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/v1/webhooks/url-rules')).toHaveLength(1);
  });

  it('says so prominently when one was turned off for failing, and turns it back on', async () => {
    const { calls } = mockApi({ ...tokenAnswers, ...webhookServer([books, failing]) });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/integrations');

    const alert = await screen.findByTestId('webhook-failing-alert');
    expect(alert).toHaveTextContent('A webhook was turned off');
    expect(alert).toHaveTextContent('Every delivery to https://crm.example.com/in has failed since Mar 1, 2026, so it was turned off after failing for days');
    expect(within(row('https://crm.example.com/in')).getByTestId('webhook-status')).toHaveTextContent('Turned off: kept failing');
    expect(row('https://crm.example.com/in')).toHaveTextContent('All user events');

    await user.click(within(alert).getByRole('button', { name: 'Turn it back on' }));
    expect(await screen.findByText('The webhook https://crm.example.com/in was turned back on.')).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')).toMatchObject({ path: `/api/v1/webhooks/${failing.id}`, body: { enabled: true } });
    await waitFor(() => expect(screen.queryByTestId('webhook-failing-alert')).not.toBeInTheDocument());
    expect(within(row('https://crm.example.com/in')).getByTestId('webhook-status')).toHaveTextContent('Active');
  });

  it('edits, turns off (asking first), rotates the secret (asking first) and deletes (asking first)', async () => {
    const { calls } = mockApi({ ...tokenAnswers, ...webhookServer([books]) });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/integrations');
    await screen.findAllByTestId('webhook-row');

    await rowAction(user, books.url, 'Edit');
    const form = await screen.findByRole('dialog', { name: 'Edit webhook' });
    expect(within(form).getByLabelText(/^URL/)).toHaveValue(books.url);
    expect(within(form).getByRole('checkbox', { name: 'Report approved' })).toBeChecked();
    await user.click(within(form).getByRole('checkbox', { name: 'Report rejected' }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(`The webhook ${books.url} was saved.`)).toBeInTheDocument();
    // Only what changed is sent.
    expect(calls.filter((call) => call.method === 'PUT').map((call) => call.body)).toEqual([{ events: ['report.approved', 'report.rejected'] }]);

    await rowAction(user, books.url, 'Turn off');
    let confirm = await screen.findByRole('dialog', { name: 'Turn this webhook off?' });
    expect(confirm).toHaveTextContent(`Nothing more is sent to ${books.url} until it is turned back on. Deliveries still waiting are given up.`);
    await user.click(within(confirm).getByRole('button', { name: 'Turn off' }));
    expect(await screen.findByText(`The webhook ${books.url} was turned off.`)).toBeInTheDocument();
    await waitFor(() => expect(within(row(books.url)).getByTestId('webhook-status')).toHaveTextContent('Off'));
    // Turned off by hand: no alert.
    expect(screen.queryByTestId('webhook-failing-alert')).not.toBeInTheDocument();

    await rowAction(user, books.url, 'Rotate secret');
    confirm = await screen.findByRole('dialog', { name: 'Rotate the signing secret?' });
    expect(confirm).toHaveTextContent('The current one keeps signing for 24 hours more');
    expect(calls.some((call) => call.path.endsWith('/rotate-secret'))).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Rotate secret' }));
    const shown = await screen.findByRole('dialog', { name: 'Copy the new signing secret' });
    expect(within(shown).getByTestId('webhook-secret')).toHaveTextContent(ROTATED);
    expect(shown).toHaveTextContent('The previous secret keeps signing deliveries for 24 hours');
    expect(calls.filter((call) => call.path.includes('/rotate-secret')).map((call) => call.path)).toEqual([`/api/v1/webhooks/${books.id}/rotate-secret`]);
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    // A leaked secret: the rotation stops it at once.
    await rowAction(user, books.url, 'Rotate secret');
    confirm = await screen.findByRole('dialog', { name: 'Rotate the signing secret?' });
    await user.click(within(confirm).getByRole('checkbox', { name: 'Stop the current secret at once' }));
    expect(confirm).toHaveTextContent('the current one stops at once');
    await user.click(within(confirm).getByRole('button', { name: 'Rotate secret' }));
    const expired = await screen.findByRole('dialog', { name: 'Copy the new signing secret' });
    expect(expired).toHaveTextContent('The previous secret no longer signs anything');
    expect(calls.filter((call) => call.path.includes('/rotate-secret')).map((call) => call.path)[1]).toBe(
      `/api/v1/webhooks/${books.id}/rotate-secret?previousSecretHours=0`,
    );
    await user.click(within(expired).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await rowAction(user, books.url, 'Delete');
    confirm = await screen.findByRole('dialog', { name: 'Delete this webhook?' });
    expect(confirm).toHaveTextContent('This cannot be undone.');
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(`The webhook ${books.url} was deleted.`)).toBeInTheDocument();
    expect(await screen.findByText('No webhooks yet')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([`/api/v1/webhooks/${books.id}`]);
  });

  it('lists its deliveries, sends a test event and sends a failed delivery again', async () => {
    const { calls } = mockApi({ ...tokenAnswers, ...webhookServer([books], [approvedDelivery, failedDelivery]) });
    session.start('token', ceo);
    const user = userEvent.setup();
    renderApp('/ceo/integrations');
    await screen.findAllByTestId('webhook-row');

    await user.click(within(row(books.url)).getByRole('button', { name: `Deliveries of ${books.url}` }));
    const dialog = await screen.findByRole('dialog', { name: 'Deliveries' });
    const rows = await within(dialog).findAllByTestId('delivery-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Report approved');
    expect(within(rows[0]).getByTestId('delivery-status')).toHaveTextContent('Delivered');
    expect(within(rows[0]).getByTestId('delivery-answer')).toHaveTextContent('HTTP 204');
    expect(within(rows[1]).getByTestId('delivery-status')).toHaveTextContent('Failed');
    expect(within(rows[1]).getByTestId('delivery-answer')).toHaveTextContent('Timed out');
    expect(rows[1]).toHaveTextContent('8');

    await user.click(within(dialog).getByRole('button', { name: 'Send test event' }));
    expect(await screen.findByText(`A test event is on its way to ${books.url}.`)).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getAllByTestId('delivery-row')).toHaveLength(3));
    expect(within(dialog).getAllByTestId('delivery-row')[0]).toHaveTextContent('Test event');
    expect(within(dialog).getAllByTestId('delivery-row')[0]).toHaveTextContent('webhook.test');

    const failedRow = within(dialog).getAllByTestId('delivery-row')[2];
    await user.click(within(failedRow).getByRole('button', { name: /^Redeliver the event “Report rejected” of / }));
    expect(await screen.findByText('The delivery is on its way again.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      `/api/v1/webhooks/${books.id}/test`,
      `/api/v1/webhooks/${books.id}/deliveries/${failedDelivery.id}/redeliver`,
    ]);
  });

  it('is in French too', async () => {
    mockApi({ ...tokenAnswers, ...webhookServer([books, failing]) });
    session.start('token', ceo);
    await act(() => changeLocale('fr'));
    const user = userEvent.setup();
    renderApp('/ceo/integrations');

    expect(await screen.findByRole('heading', { level: 2, name: 'Webhooks' })).toBeInTheDocument();
    expect(await screen.findByTestId('webhook-failing-alert')).toHaveTextContent('Un webhook a été désactivé');
    expect(within(row('https://crm.example.com/in')).getByTestId('webhook-status')).toHaveTextContent('Désactivé : échecs répétés');
    const form = await (async () => {
      await user.click(screen.getByRole('button', { name: 'Nouveau webhook' }));
      return screen.findByRole('dialog', { name: 'Nouveau webhook' });
    })();
    expect(
      await within(form).findByText(
        "Où les événements sont envoyés : une adresse https sur l'internet public, sur le port 443 ou 8443. Les adresses privées et locales sont refusées : aucun webhook ne peut atteindre le réseau interne de la plateforme.",
      ),
    ).toBeInTheDocument();
    expect(within(form).getByRole('checkbox', { name: 'Tous les événements des rapports' })).toBeInTheDocument();
    expect(within(form).getByRole('checkbox', { name: 'Rapport approuvé' })).toBeInTheDocument();
  });
});

describe("the platform admin's webhooks", () => {
  it("the platform's own: in the sidebar, heard from every enterprise", async () => {
    const { calls } = mockApi(webhookServer([books]));
    session.start('token', admin);
    const user = userEvent.setup();
    const { location } = renderApp('/no-such-page');

    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    await user.click(within(nav).getByRole('link', { name: 'Integrations' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Integrations' })).toBeInTheDocument();
    expect(location().pathname).toBe('/admin/integrations');
    expect(await screen.findByRole('heading', { level: 2, name: 'Platform webhooks' })).toBeInTheDocument();
    expect(await screen.findByText(books.url)).toBeInTheDocument();
    expect(calls.map((call) => call.path)).toContain('/api/v1/webhooks?page=1&pageSize=20');
    expect(calls.some((call) => call.path.includes('service-tokens'))).toBe(false);
  });

  it("an enterprise's: from its page, made for that enterprise", async () => {
    const { calls } = mockApi({
      [`GET ${base}`]: jsonResponse(200, detail),
      ...tokenAnswers,
      ...webhookServer([]),
    });
    session.start('token', admin);
    const user = userEvent.setup();
    renderApp(`/admin/enterprises/${detail.id}/integrations`);

    expect(await screen.findByRole('heading', { level: 1, name: 'Integrations: Acme Corp' })).toBeInTheDocument();
    expect(calls.map((call) => call.path)).toContain(`/api/v1/webhooks?enterpriseId=${detail.id}&page=1&pageSize=20`);
    const form = await openForm(user);
    await user.type(within(form).getByLabelText(/^URL/), 'https://erp.example.com/acme');
    await user.click(within(form).getByRole('checkbox', { name: 'All events' }));
    await user.click(within(form).getByRole('button', { name: 'Create' }));
    await screen.findByRole('dialog', { name: 'Copy the signing secret' });
    const post = calls.find((call) => call.method === 'POST')!;
    expect(post.path).toBe(`/api/v1/webhooks?enterpriseId=${detail.id}`);
    expect((post.body as CreateWebhook).events).toHaveLength(13);
  });
});
