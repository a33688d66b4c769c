import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { MfaStatus } from '@/api/generated/model';
import { session } from '@/lib/session';
import { mockApi } from '@/testing/api-mock';
import { apiError, jsonResponse, makeMfaStatus, makeUser, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';

const me = makeUser('DepartmentUser', { fullName: 'Hal Jordan', email: 'hal@acme.test' });
const CODES = Array.from({ length: 10 }, (_, i) => `rc${i}-abcd`);

beforeEach(() => session.start('tok', me));

async function openTwoStep() {
  renderApp('/settings/profile');
  const region = await screen.findByRole('region', { name: 'Two-step sign-in' });
  await within(region).findByTestId('two-step-status');
  return region;
}

describe('the profile’s two-step sign-in', () => {
  it('sets up an authenticator: QR code and key, first code, then the recovery codes once', async () => {
    let status: MfaStatus = makeMfaStatus();
    let attempts = 0;
    const { calls } = mockApi({
      'GET /api/v1/auth/mfa': () => jsonResponse(200, status),
      'GET /api/v1/auth/webauthn/credentials': jsonResponse(200, []),
      'POST /api/v1/auth/mfa/totp': jsonResponse(200, { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Acme:hal?secret=JBSWY3DPEHPK3PXP' }),
      'POST /api/v1/auth/mfa/totp/confirm': () => {
        if (++attempts === 1) return serverErrors.validation({ code: 'invalid' });
        status = makeMfaStatus({ totpEnabled: true, recoveryCodesLeft: 10 });
        return jsonResponse(200, { recoveryCodes: CODES });
      },
    });
    const region = await openTwoStep();
    expect(within(region).getByTestId('two-step-status')).toHaveTextContent('Off');
    const user = userEvent.setup();
    await user.click(within(region).getByRole('button', { name: 'Set up an authenticator app' }));

    const dialog = await screen.findByRole('dialog', { name: 'Set up an authenticator app' });
    expect(await within(dialog).findByTestId('totp-secret')).toHaveTextContent('JBSW Y3DP EHPK 3PXP');
    expect(await within(dialog).findByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeInTheDocument();
    await user.type(within(dialog).getByRole('textbox', { name: /^Authentication code/ }), '111111');
    await user.click(within(dialog).getByRole('button', { name: 'Turn on' }));
    expect(await within(dialog).findByText('This code is not correct. Check your app and try the current code.')).toBeInTheDocument();

    await user.type(within(dialog).getByRole('textbox', { name: /^Authentication code/ }), '222222');
    await user.click(within(dialog).getByRole('button', { name: 'Turn on' }));
    const codesDialog = await screen.findByRole('dialog', { name: 'Save your recovery codes' });
    expect(
      within(codesDialog)
        .getAllByTestId('recovery-code')
        .map((item) => item.textContent),
    ).toEqual(CODES);
    // Only "Done", once the codes are said to be kept, closes it.
    expect(within(codesDialog).queryByRole('button', { name: /close/i })).not.toBeInTheDocument();
    expect(within(codesDialog).getByRole('button', { name: 'Done' })).toBeDisabled();
    await user.click(within(codesDialog).getByRole('checkbox', { name: 'I have saved these recovery codes' }));
    await user.click(within(codesDialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    expect(await within(region).findByText('10 recovery codes left.')).toBeInTheDocument();
    expect(within(region).getByTestId('two-step-status')).toHaveTextContent('On');
    expect(calls.filter((call) => call.path === '/api/v1/auth/mfa/totp/confirm').map((call) => call.body)).toEqual([{ code: '111111' }, { code: '222222' }]);
    expect(session.get().status === 'signed_in' && session.get()).toMatchObject({ user: { mfaEnabled: true } });
  });

  it('says when the policy requires it, and turns it off with the password after saying what that means', async () => {
    let status: MfaStatus = makeMfaStatus({ totpEnabled: true, recoveryCodesLeft: 2, required: true });
    const { calls } = mockApi({
      'GET /api/v1/auth/mfa': () => jsonResponse(200, status),
      'GET /api/v1/auth/webauthn/credentials': jsonResponse(200, []),
      'DELETE /api/v1/auth/mfa/totp': ({ body }) => {
        if ((body as { password?: string }).password !== 'right one') return serverErrors.validation({ password: 'invalid' });
        status = makeMfaStatus({ required: true });
        return new Response(null, { status: 204 });
      },
    });
    const region = await openTwoStep();
    expect(within(region).getByTestId('two-step-required')).toHaveTextContent('If you turn it off, you will have to set it up again at your next sign-in.');
    expect(within(region).getByTestId('recovery-codes-left')).toHaveTextContent('2 recovery codes left. Make new ones before you run out.');

    const user = userEvent.setup();
    await user.click(within(region).getByRole('button', { name: 'Turn off' }));
    const dialog = await screen.findByRole('dialog', { name: 'Turn off two-step sign-in?' });
    expect(dialog).toHaveTextContent('you will have to set it up again at your next sign-in');
    await user.click(within(dialog).getByRole('radio', { name: 'My password' }));
    await user.type(within(dialog).getByLabelText(/^Current password/, { selector: 'input' }), 'wrong');
    await user.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    expect(await within(dialog).findByText('This password is not correct.')).toBeInTheDocument();

    await user.clear(within(dialog).getByLabelText(/^Current password/, { selector: 'input' }));
    await user.type(within(dialog).getByLabelText(/^Current password/, { selector: 'input' }), 'right one');
    await user.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    expect(await screen.findByText('Two-step sign-in is off')).toBeInTheDocument();
    await waitFor(() => expect(within(region).getByTestId('two-step-status')).toHaveTextContent('Off'));
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.body)).toEqual([{ password: 'wrong' }, { password: 'right one' }]);
  });

  it('makes new recovery codes with a code from the app, and shows them once', async () => {
    const { calls } = mockApi({
      'GET /api/v1/auth/mfa': () => jsonResponse(200, makeMfaStatus({ totpEnabled: true, recoveryCodesLeft: 7 })),
      'GET /api/v1/auth/webauthn/credentials': jsonResponse(200, []),
      'POST /api/v1/auth/mfa/recovery-codes': ({ body }) =>
        (body as { code?: string }).code === '123456'
          ? jsonResponse(200, { recoveryCodes: CODES })
          : apiError(400, { code: 'validation_failed', message: 'x', fields: { code: 'invalid' } }),
    });
    const region = await openTwoStep();
    const user = userEvent.setup();
    await user.click(within(region).getByRole('button', { name: 'New recovery codes' }));
    const dialog = await screen.findByRole('dialog', { name: 'New recovery codes' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Code from your app, or a recovery code/ }), '999999');
    await user.click(within(dialog).getByRole('button', { name: 'Make new codes' }));
    expect(await within(dialog).findByText('This code is not correct.')).toBeInTheDocument();
    await user.clear(within(dialog).getByRole('textbox', { name: /^Code from your app/ }));
    await user.type(within(dialog).getByRole('textbox', { name: /^Code from your app/ }), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Make new codes' }));

    const codesDialog = await screen.findByRole('dialog', { name: 'Save your recovery codes' });
    expect(within(codesDialog).getAllByTestId('recovery-code')).toHaveLength(10);
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.body)).toEqual([{ code: '999999' }, { code: '123456' }]);
  });
});
