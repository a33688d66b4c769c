import { startRegistration } from '@simplewebauthn/browser';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PasskeyInfo } from '@/api/generated/model';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { jsonResponse, makeMfaStatus, makeUser } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

// The browser's side of the ceremony: jsdom has no WebAuthn. The server's side is mocked below.
vi.mock('@simplewebauthn/browser', () => ({ startRegistration: vi.fn(), startAuthentication: vi.fn() }));

const me = makeUser('DepartmentUser', { fullName: 'Hal Jordan', email: 'hal@acme.test', mfaEnabled: false });
const laptop: PasskeyInfo = { id: '0190f3c2-0000-7000-8000-0000000000a1', name: 'Work laptop', createdAt: '2026-03-02T09:00:00Z' };
const OPTIONS = { challenge: 'Y2hhbGxlbmdl', rp: { id: 'localhost', name: 'Enterprise Platform' } };
const CREDENTIAL = {
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'o2Nm' },
  clientExtensionResults: {},
};

beforeEach(() => {
  session.start('tok', me);
  // A browser with WebAuthn, unless a test says otherwise.
  vi.stubGlobal('PublicKeyCredential', class PublicKeyCredential {});
});

/** The server's passkeys, as a list the mocked calls change. */
function mockPasskeys(initial: PasskeyInfo[]) {
  let passkeys = [...initial];
  const mock = mockApi({
    'GET /api/v1/auth/mfa': () => jsonResponse(200, makeMfaStatus({ passkeys: passkeys.length })),
    'GET /api/v1/auth/webauthn/credentials': () => jsonResponse(200, passkeys),
    'POST /api/v1/auth/webauthn/registration/options': () => jsonResponse(200, { publicKey: OPTIONS }),
    'POST /api/v1/auth/webauthn/registration': ({ body }) => {
      const created = { id: '0190f3c2-0000-7000-8000-0000000000a2', name: (body as { name: string }).name, createdAt: '2026-03-03T10:00:00Z' };
      passkeys = [...passkeys, created];
      return jsonResponse(201, created);
    },
    'PUT /api/v1/auth/webauthn/credentials/0190f3c2-0000-7000-8000-0000000000a1': ({ body }) => {
      passkeys = passkeys.map((passkey) => (passkey.id === laptop.id ? { ...passkey, name: (body as { name: string }).name } : passkey));
      return jsonResponse(200, passkeys[0]);
    },
    'DELETE /api/v1/auth/webauthn/credentials/0190f3c2-0000-7000-8000-0000000000a1': () => {
      passkeys = passkeys.filter((passkey) => passkey.id !== laptop.id);
      return new Response(null, { status: 204 });
    },
  });
  return mock;
}

async function openPasskeys() {
  renderApp('/settings/profile');
  return screen.findByRole('region', { name: 'Passkeys' });
}

describe('the profile’s passkeys', () => {
  it('explain what a passkey is while there is none, then add one: a name, the browser’s prompt (cancelled once), the answer named', async () => {
    const { calls } = mockPasskeys([]);
    const region = await openPasskeys();
    expect(await within(region).findByText('No passkeys yet')).toBeInTheDocument();
    expect(within(region).getByText(/kept by your device or password manager/)).toBeInTheDocument();

    const user = userEvent.setup();
    vi.mocked(startRegistration).mockRejectedValueOnce(new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError'));
    await user.click(within(region).getByRole('button', { name: 'Add a passkey' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a passkey' });
    const name = within(dialog).getByRole('textbox', { name: /^Name/ });
    // jsdom's user agent names no browser it knows.
    expect(name).toHaveValue('My passkey');
    await user.clear(name);
    await user.click(within(dialog).getByRole('button', { name: 'Create the passkey' }));
    expect(within(dialog).getByText('This field is required')).toBeInTheDocument();
    await user.type(name, 'Work laptop');
    await user.click(within(dialog).getByRole('button', { name: 'Create the passkey' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The passkey request was cancelled or timed out. Try again when you are ready.');
    expect(calls.filter((call) => call.path === '/api/v1/auth/webauthn/registration')).toEqual([]);

    vi.mocked(startRegistration).mockResolvedValueOnce(CREDENTIAL as never);
    await user.click(within(dialog).getByRole('button', { name: 'Create the passkey' }));
    expect(await screen.findByText('Passkey “Work laptop” added')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(startRegistration).toHaveBeenLastCalledWith({ optionsJSON: OPTIONS });
    expect(calls.filter((call) => call.path === '/api/v1/auth/webauthn/registration').map((call) => call.body)).toEqual([
      { name: 'Work laptop', credential: CREDENTIAL },
    ]);
    const row = await within(region).findByTestId('passkey-row');
    expect(row).toHaveTextContent('Work laptop');
    expect(row).toHaveTextContent('Never used');
    // A passkey is a second factor: the two-step section and the account say so.
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Two-step sign-in' })).getByTestId('two-step-status')).toHaveTextContent('On'));
    expect(session.get()).toMatchObject({ user: { mfaEnabled: true } });
  });

  it('renames one from the keyboard', async () => {
    const { calls } = mockPasskeys([{ ...laptop, lastUsedAt: '2026-03-04T08:00:00Z' }]);
    const region = await openPasskeys();
    const row = await within(region).findByTestId('passkey-row');
    expect(row).toHaveTextContent('Last used Mar 4, 2026');
    const user = userEvent.setup();
    within(row).getByRole('button', { name: 'Rename Work laptop' }).focus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'Rename the passkey' });
    const name = within(dialog).getByRole('textbox', { name: /^Name/ });
    await waitFor(() => expect(name).toHaveFocus());
    expect(name).toHaveValue('Work laptop');
    await user.clear(name);
    await user.type(name, 'Phone{Enter}');
    expect(await screen.findByText('Passkey renamed')).toBeInTheDocument();
    expect(await within(region).findByText('Phone')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'PUT').map((call) => call.body)).toEqual([{ name: 'Phone' }]);
  });

  it('removes one only after a confirmation that names it', async () => {
    const { calls } = mockPasskeys([laptop]);
    const region = await openPasskeys();
    const user = userEvent.setup();
    await user.click(await within(region).findByRole('button', { name: 'Remove Work laptop' }));
    let dialog = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    expect(dialog).toHaveTextContent('“Work laptop” will no longer sign you in.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.filter((call) => call.method === 'DELETE')).toEqual([]);

    await user.click(within(region).getByRole('button', { name: 'Remove Work laptop' }));
    dialog = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove the passkey' }));
    expect(await screen.findByText('Passkey “Work laptop” removed')).toBeInTheDocument();
    expect(await within(region).findByText('No passkeys yet')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([
      '/api/v1/auth/webauthn/credentials/0190f3c2-0000-7000-8000-0000000000a1',
    ]);
  });

  it('in a browser without WebAuthn, says it cannot add one, and still renames and removes them', async () => {
    vi.stubGlobal('PublicKeyCredential', undefined);
    mockPasskeys([laptop]);
    const region = await openPasskeys();
    expect(await within(region).findByTestId('passkeys-unsupported')).toHaveTextContent('This browser cannot create passkeys.');
    expect(within(region).getByRole('button', { name: 'Add a passkey' })).toBeDisabled();
    expect(within(region).getByRole('button', { name: 'Rename Work laptop' })).toBeEnabled();
    expect(within(region).getByRole('button', { name: 'Remove Work laptop' })).toBeEnabled();
  });
});
