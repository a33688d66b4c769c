import { type APIRequestContext, type Browser, type Page, expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, signIn } from './support';

/**
 * Accounts people own (issue 25), against the real server and the real SMTP catcher
 * (scripts/mail/catcher.py): people are invited by e-mail and choose their password, change it
 * in their profile (their other sessions end), reset it from an e-mailed link, and get e-mails
 * whose links open the app. playwright.config.ts gives the server PUBLIC_URL (the links' origin)
 * and a 2 s digest window (MAIL_DIGEST_SECS), so activity e-mails leave within seconds.
 */

const MAIL_CATCHER = process.env.MAIL_CATCHER_URL ?? 'http://127.0.0.1:1080';
type Mail = { subject: string; to: string | string[]; text: string; html: string; raw: string };

/** The messages the catcher holds for an address, the newest first. */
async function mailsTo(request: APIRequestContext, address: string): Promise<Mail[]> {
  const response = await request.get(`${MAIL_CATCHER}/api/messages?to=${encodeURIComponent(address)}`);
  expect(response.status(), `the mail catcher at ${MAIL_CATCHER}`).toBe(200);
  return (await response.json()) as Mail[];
}

/** Waits for a message to `address` that `wanted` picks (activity is batched: up to ~20 s). */
async function waitForMail(request: APIRequestContext, address: string, wanted: (mail: Mail) => boolean, timeout = 25_000): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        found = (await mailsTo(request, address)).find(wanted);
        return found !== undefined;
      },
      { message: `an e-mail to ${address}`, timeout, intervals: [250, 500, 1000] },
    )
    .toBe(true);
  return found!;
}

/** The link to `path` in a message's text: the server's public address, then the app's path. */
function linkIn(mail: Mail, path: string): string {
  const match = mail.text.match(new RegExp(`https?://[^\\s"<>]+${path.replace(/[?]/g, '\\?')}[^\\s"<>]*`));
  expect(match, `a link to ${path} in:\n${mail.text}`).not.toBeNull();
  return match![0];
}

/** A page of its own browser (storage apart), in French when asked: a person on their own device. */
async function newPerson(browser: Browser, locale?: 'fr') {
  const context = await browser.newContext(locale ? { locale: 'fr-FR' } : {});
  if (locale) await context.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
  return context.newPage();
}

/** Picks an option of a Mantine Select. */
async function pick(page: Page, label: RegExp, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

test.describe('accounts people own', () => {
  // One story from the admin's invitation to the CEO's e-mail about a report: several people,
  // several e-mails, batched activity. The steps' waits are conditions, not sleeps.
  test.describe.configure({ timeout: 180_000 });

  test('invited people choose their password, change it, reset it, and get e-mails that open the app', async ({ page, browser, request }) => {
    const enterpriseName = `Comptoir des invitations ${runId}`;
    const ceo = { name: `Cora Invitée ${runId}`, email: `ceo-${runId}@e2e.test`, password: 'cora-chose-this-1' };
    const staff = {
      name: `Léa Martin ${runId}`,
      email: `lea-${runId}@e2e.test`,
      password: 'lea-chose-this-1',
      changed: 'lea-changed-it-2',
      reset: 'lea-reset-it-3',
    };

    await test.step('the admin creates an enterprise whose CEO is invited: no password is set', async () => {
      await signIn(page);
      await page.goto('/admin/enterprises/create');
      await page.getByLabel(/^Name/).fill(enterpriseName);
      await page.getByLabel(/^CEO full name/).fill(ceo.name);
      await page.getByLabel(/^CEO email/).fill(ceo.email);
      await expect(page.getByRole('radio', { name: 'Send an invitation by e-mail' })).toBeChecked();
      await expect(page.getByLabel(/^CEO password/)).toHaveCount(0);
      const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/enterprises') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Create enterprise' }).click();
      const body = (await created).request().postDataJSON() as Record<string, unknown>;
      expect(body).not.toHaveProperty('ceoPassword');
      expect(body).toMatchObject({ ceoEmail: ceo.email, ceoLocale: 'en' });
      await expect(page.getByText(`Enterprise created: an invitation was sent to ${ceo.email}`)).toBeVisible();
      await expect(page.getByRole('heading', { level: 1, name: enterpriseName })).toBeVisible();
      // The CEO shows as invited in the enterprise's people, with a new invitation to send.
      const row = page.getByRole('row').filter({ hasText: ceo.email });
      await expect(row.getByTestId('invitation-status')).toHaveText('Invited');
      await expect(row.getByRole('button', { name: `Resend invitation (${ceo.name})` })).toBeVisible();
    });

    const ceoPage = await newPerson(browser);
    await test.step('the CEO accepts the e-mailed invitation and lands signed in', async () => {
      const invitation = await waitForMail(request, ceo.email, (mail) => mail.text.includes('/accept-invitation?token='));
      expect(invitation.subject).toMatch(/ invited you to Enterprise Platform$/);
      await ceoPage.goto(linkIn(invitation, '/accept-invitation?token='));
      await expect(ceoPage.getByRole('heading', { level: 1, name: 'Welcome to Enterprise Platform' })).toBeVisible();
      // Bad input first: the page says what is wrong, the server is not asked.
      await ceoPage.getByRole('button', { name: 'Activate my account' }).click();
      await expect(ceoPage.getByText('This field is required')).toHaveCount(2);
      await ceoPage.getByLabel(/^Password/).fill(ceo.password);
      await ceoPage.getByLabel(/^Confirm the password/).fill(`${ceo.password}-typo`);
      await ceoPage.getByRole('button', { name: 'Activate my account' }).click();
      await expect(ceoPage.getByText('The passwords do not match')).toBeVisible();
      await ceoPage.getByLabel(/^Confirm the password/).fill(ceo.password);
      await ceoPage.getByRole('button', { name: 'Activate my account' }).click();
      await expect(ceoPage).toHaveURL(/\/dashboard$/);
      await expect(ceoPage.getByRole('heading', { level: 1, name: `Welcome, ${ceo.name}` })).toBeVisible();
      // The link works once.
      const again = await newPerson(browser);
      await again.goto(linkIn(invitation, '/accept-invitation?token='));
      await again.getByLabel(/^Password/).fill('another-choice-17');
      await again.getByLabel(/^Confirm the password/).fill('another-choice-17');
      await again.getByRole('button', { name: 'Activate my account' }).click();
      await expect(again.getByRole('alert')).toContainText('This invitation link is invalid or has expired. Ask the person who invited you to send a new one.');
      await again.context().close();
    });

    await test.step('the CEO invites a department user in French, and sends the invitation again', async () => {
      await ceoPage.goto('/admin/users/create');
      await ceoPage.getByLabel(/^Full name/).fill(staff.name);
      await ceoPage.getByLabel(/^Email/).fill(staff.email);
      await pick(ceoPage, /^Department/, 'Finance');
      await pick(ceoPage, /^Language of their e-mails/, 'Français');
      await ceoPage.getByRole('button', { name: 'Create user' }).click();
      await expect(ceoPage.getByText(`${staff.name} was created: an invitation was sent to ${staff.email}`)).toBeVisible();
      await expect(ceoPage).toHaveURL(/\/admin\/users$/);
      await waitForMail(request, staff.email, (mail) => mail.text.includes('/accept-invitation?token='));

      const row = ceoPage.getByTestId('user-row').filter({ hasText: staff.email });
      await expect(row.getByTestId('invitation-status')).toHaveText('Invited');
      await row.getByRole('button', { name: `Resend invitation (${staff.name})` }).click();
      await expect(ceoPage.getByText(`A new invitation was sent to ${staff.email}`)).toBeVisible();
      await expect.poll(async () => (await mailsTo(request, staff.email)).length, { timeout: 15_000 }).toBe(2);
    });

    const staffPage = await newPerson(browser, 'fr');
    await test.step('the department user accepts the newest invitation, in French', async () => {
      const [newest, first] = await mailsTo(request, staff.email);
      expect(newest.subject).toBe(`${ceo.name} vous invite sur Enterprise Platform`);
      // Sending again made the first link stop working.
      await staffPage.goto(linkIn(first, '/accept-invitation?token='));
      await expect(staffPage.getByRole('heading', { level: 1, name: 'Bienvenue sur Enterprise Platform' })).toBeVisible();
      await staffPage.getByLabel(/^Mot de passe/).fill('court');
      await staffPage.getByRole('button', { name: 'Activer mon compte' }).click();
      await expect(staffPage.getByText('Le mot de passe doit contenir au moins 8 caractères')).toBeVisible();
      await expect(staffPage.getByText('Ce champ est obligatoire')).toBeVisible();
      await staffPage.getByLabel(/^Mot de passe/).fill(staff.password);
      await staffPage.getByLabel(/^Confirmez le mot de passe/).fill(staff.password);
      await staffPage.getByRole('button', { name: 'Activer mon compte' }).click();
      await expect(staffPage.getByRole('alert')).toContainText("Ce lien d'invitation est invalide ou a expiré.");

      await staffPage.goto(linkIn(newest, '/accept-invitation?token='));
      await staffPage.getByLabel(/^Mot de passe/).fill(staff.password);
      await staffPage.getByLabel(/^Confirmez le mot de passe/).fill(staff.password);
      await staffPage.getByRole('button', { name: 'Activer mon compte' }).click();
      await expect(staffPage).toHaveURL(/\/dashboard$/);
      await expect(staffPage.getByRole('heading', { level: 1, name: `Bienvenue, ${staff.name}` })).toBeVisible();
    });

    await test.step('the CEO hears that the invitation was accepted, and the list shows it', async () => {
      const accepted = await waitForMail(request, ceo.email, (mail) => mail.text.includes(staff.name) && mail.text.includes('/admin/users'));
      expect(linkIn(accepted, '/admin/users')).toMatch(/\/admin\/users$/);
      await ceoPage.reload();
      const row = ceoPage.getByTestId('user-row').filter({ hasText: staff.email });
      await expect(row).toContainText('Active');
      await expect(row.getByTestId('invitation-status')).toHaveCount(0);
    });

    await test.step('the user changes their password in the profile: their other browser is signed out', async () => {
      const other = await newPerson(browser);
      await signIn(other, { email: staff.email, password: staff.password });

      await staffPage.getByRole('button', { name: /^Menu du compte de/ }).click();
      await staffPage.getByRole('menuitem', { name: 'Profil' }).click();
      await expect(staffPage).toHaveURL(/\/settings\/profile$/);
      const section = staffPage.getByRole('region', { name: 'Mot de passe' });
      await section.getByLabel(/^Mot de passe actuel/).fill('not-my-password');
      await section.getByLabel(/^Nouveau mot de passe/).fill(staff.changed);
      await section.getByLabel(/^Confirmez le nouveau mot de passe/).fill(staff.changed);
      await section.getByRole('button', { name: 'Changer le mot de passe' }).click();
      await expect(section.getByText('Votre mot de passe actuel est incorrect')).toBeVisible();
      await section.getByLabel(/^Mot de passe actuel/).fill(staff.password);
      await section.getByRole('button', { name: 'Changer le mot de passe' }).click();
      await expect(staffPage.getByText('Votre mot de passe a été modifié. Vos autres sessions ont été déconnectées.')).toBeVisible();
      // This session stays.
      await staffPage.reload();
      await expect(staffPage.getByRole('heading', { level: 1, name: 'Votre profil' })).toBeVisible();

      // The other one is over: its next call gets 401 and the app shows the sign-in page.
      await other.reload();
      await expect(other).toHaveURL(/\/login$/);
      await expect(other.getByRole('button', { name: 'Se connecter' })).toBeVisible();
      await other.context().close();
    });

    await test.step('signed out, the user resets the password from an e-mailed link and signs in with it', async () => {
      await staffPage.getByRole('button', { name: /^Menu du compte de/ }).click();
      const signedOut = staffPage.waitForResponse((r) => r.url().endsWith('/api/v1/auth/logout'));
      await staffPage.getByRole('menuitem', { name: 'Se déconnecter' }).click();
      await signedOut;
      await expect(staffPage).toHaveURL(/\/login$/);
      await staffPage.getByRole('link', { name: /^Mot de passe oublié/ }).click();
      await expect(staffPage).toHaveURL(/\/forgot-password$/);
      // Under three spec files at a time the field was twice found empty again at the click (the
      // page built anew as the signed-out app settled; not yet explained): typed again until the
      // click carries it. What is checked is the answer to an address that is not one.
      await expect(async () => {
        await staffPage.getByLabel(/^E-mail/).fill('pas-une-adresse');
        await staffPage.getByRole('button', { name: 'Envoyer le lien' }).click();
        await expect(staffPage.getByText('Veuillez saisir une adresse e-mail valide')).toBeVisible({ timeout: 2_000 });
      }).toPass({ timeout: 15_000 });
      await staffPage.getByLabel(/^E-mail/).fill(staff.email);
      await staffPage.getByRole('button', { name: 'Envoyer le lien' }).click();
      await expect(staffPage.getByRole('status')).toContainText(
        'Si un compte utilise cette adresse, nous lui avons envoyé un lien pour réinitialiser son mot de passe. Il est valable une heure.',
      );

      const reset = await waitForMail(request, staff.email, (mail) => mail.text.includes('/reset-password?token='));
      await staffPage.goto(linkIn(reset, '/reset-password?token='));
      await expect(staffPage.getByRole('heading', { level: 1, name: 'Choisissez un nouveau mot de passe' })).toBeVisible();
      await staffPage.getByLabel(/^Nouveau mot de passe/).fill(staff.reset);
      await staffPage.getByLabel(/^Confirmez le mot de passe/).fill(`${staff.reset}!`);
      await staffPage.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
      await expect(staffPage.getByText('Les mots de passe ne correspondent pas')).toBeVisible();
      await staffPage.getByLabel(/^Confirmez le mot de passe/).fill(staff.reset);
      await staffPage.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
      await expect(staffPage.getByRole('status')).toContainText('Votre mot de passe a été modifié. Connectez-vous avec dès maintenant.');
      await staffPage.getByRole('link', { name: 'Se connecter' }).click();

      await expect(staffPage).toHaveURL(/\/login$/);
      await staffPage.getByLabel(/^E-mail/).fill(staff.email);
      await staffPage.getByLabel(/^Mot de passe/).fill(staff.changed);
      await staffPage.getByRole('button', { name: 'Se connecter' }).click();
      await expect(staffPage.getByRole('alert')).toHaveText('E-mail ou mot de passe invalide');
      await staffPage.getByLabel(/^Mot de passe/).fill(staff.reset);
      await staffPage.getByRole('button', { name: 'Se connecter' }).click();
      await expect(staffPage).toHaveURL(/\/dashboard$/);
      await expect(staffPage.getByRole('heading', { level: 1, name: `Bienvenue, ${staff.name}` })).toBeVisible();
    });

    await test.step('a report the user submits brings the CEO an e-mail whose link opens it in the app', async () => {
      const login = await request.post('/api/v1/auth/login', { data: { email: staff.email, password: staff.reset } });
      expect(login.status(), await login.text()).toBe(200);
      const { token, user } = (await login.json()) as { token: string; user: { departmentId: string } };
      const title = `Rapport du premier trimestre ${runId}`;
      const posted = await request.post(`/api/v1/departments/${user.departmentId}/reports`, {
        headers: bearer(token),
        data: { title, content: 'Les ventes ont progressé.', periodStart: '2026-01-01', periodEnd: '2026-03-31', status: 'submitted' },
      });
      expect(posted.status(), await posted.text()).toBe(201);
      const { id } = (await posted.json()) as { id: string };

      const notice = await waitForMail(request, ceo.email, (mail) => mail.text.includes(`/ceo/reports/${id}`));
      await ceoPage.goto(linkIn(notice, `/ceo/reports/${id}`));
      await expect(ceoPage).toHaveURL(new RegExp(`/ceo/reports/${id}$`));
      await expect(ceoPage.getByRole('heading', { level: 1, name: title })).toBeVisible();
    });

    await ceoPage.context().close();
    await staffPage.context().close();
  });

  test('bad input on the new forms is explained at the fields, in English and in French, and the server never fails', async ({ browser, request }) => {
    // Someone with a password, to try the profile's password change on.
    const adminToken = await apiToken(request, admin);
    const person = { fullName: `Pat Profile ${runId}`, email: `pat-${runId}@e2e.test`, password: 'pat-password-1' };
    await createEnterprise(request, adminToken, `Atelier des erreurs ${runId}`, person);

    const texts = {
      en: {
        required: 'This field is required',
        email: 'Please enter a valid email address',
        short: 'Password must be at least 8 characters',
        mismatch: 'The passwords do not match',
        weak: 'This password is too common or too easy to guess: choose a longer, less predictable one',
        wrongCurrent: 'Your current password is not correct',
        forgot: { email: /^Email/, submit: 'Send the link' },
        reset: { password: /^New password/, confirm: /^Confirm the password/, submit: 'Save the new password' },
        resetDead: 'This password reset link is invalid or has expired. Links work once, for one hour.',
        accept: { password: /^Password/, confirm: /^Confirm the password/, submit: 'Activate my account' },
        acceptDead: 'This invitation link is invalid or has expired. Ask the person who invited you to send a new one.',
        profile: { section: 'Password', current: /^Current password/, next: /^New password/, confirm: /^Confirm the new password/, submit: 'Change password' },
        signIn: { email: /^Email/, password: /^Password/, submit: 'Sign in' },
      },
      fr: {
        required: 'Ce champ est obligatoire',
        email: 'Veuillez saisir une adresse e-mail valide',
        short: 'Le mot de passe doit contenir au moins 8 caractères',
        mismatch: 'Les mots de passe ne correspondent pas',
        weak: 'Ce mot de passe est trop courant ou trop facile à deviner : choisissez-en un plus long et moins prévisible',
        wrongCurrent: 'Votre mot de passe actuel est incorrect',
        forgot: { email: /^E-mail/, submit: 'Envoyer le lien' },
        reset: { password: /^Nouveau mot de passe/, confirm: /^Confirmez le mot de passe/, submit: 'Enregistrer le mot de passe' },
        resetDead: "Ce lien de réinitialisation est invalide ou a expiré. Les liens ne servent qu'une fois, pendant une heure.",
        accept: { password: /^Mot de passe/, confirm: /^Confirmez le mot de passe/, submit: 'Activer mon compte' },
        acceptDead: "Ce lien d'invitation est invalide ou a expiré. Demandez à la personne qui vous a invité de vous en envoyer un nouveau.",
        profile: {
          section: 'Mot de passe',
          current: /^Mot de passe actuel/,
          next: /^Nouveau mot de passe/,
          confirm: /^Confirmez le nouveau mot de passe/,
          submit: 'Changer le mot de passe',
        },
        signIn: { email: /^E-mail/, password: /^Mot de passe/, submit: 'Se connecter' },
      },
    } as const;

    for (const locale of ['en', 'fr'] as const) {
      const text = texts[locale];
      const page = await newPerson(browser, locale === 'fr' ? 'fr' : undefined);

      await test.step(`${locale}: forgot password`, async () => {
        await page.goto('/forgot-password');
        await page.getByRole('button', { name: text.forgot.submit }).click();
        await expect(page.getByText(text.required)).toBeVisible();
        await page.getByLabel(text.forgot.email).fill('nobody@nowhere');
        await page.getByRole('button', { name: text.forgot.submit }).click();
        await expect(page.getByText(text.email)).toBeVisible();
      });

      for (const [form, path, dead] of [
        ['reset', '/reset-password?token=no-such-token', text.resetDead],
        ['accept', '/accept-invitation?token=no-such-token', text.acceptDead],
      ] as const) {
        await test.step(`${locale}: ${path}`, async () => {
          const fields = text[form];
          await page.goto(path);
          await page.getByRole('button', { name: fields.submit }).click();
          await expect(page.getByText(text.required)).toHaveCount(2);
          await page.getByLabel(fields.password).fill('short');
          await page.getByLabel(fields.confirm).fill('short');
          await page.getByRole('button', { name: fields.submit }).click();
          await expect(page.getByText(text.short)).toBeVisible();
          await page.getByLabel(fields.password).fill('long-enough-1');
          await page.getByLabel(fields.confirm).fill('long-enough-2');
          await page.getByRole('button', { name: fields.submit }).click();
          await expect(page.getByText(text.mismatch)).toBeVisible();
          // The server's refusal of a common password comes before its word on the link.
          await page.getByLabel(fields.password).fill('password');
          await page.getByLabel(fields.confirm).fill('password');
          await page.getByRole('button', { name: fields.submit }).click();
          await expect(page.getByText(text.weak)).toBeVisible();
          await page.getByLabel(fields.password).fill('long-enough-1');
          await page.getByLabel(fields.confirm).fill('long-enough-1');
          await page.getByRole('button', { name: fields.submit }).click();
          await expect(page.getByRole('alert')).toContainText(dead);
          // Without a token, the page says so at once.
          await page.goto(path.split('?')[0]);
          await expect(page.getByRole('alert')).toContainText(dead);
        });
      }

      await test.step(`${locale}: the profile's password change`, async () => {
        await page.goto('/login');
        await page.getByLabel(text.signIn.email).fill(person.email);
        await page.getByLabel(text.signIn.password).fill(person.password);
        await page.getByRole('button', { name: text.signIn.submit }).click();
        await expect(page).toHaveURL(/\/dashboard$/);
        await page.goto('/settings/profile');
        const section = page.getByRole('region', { name: text.profile.section });
        const submit = section.getByRole('button', { name: text.profile.submit });
        await submit.click();
        await expect(section.getByText(text.required)).toHaveCount(3);
        await section.getByLabel(text.profile.current).fill('not-the-password');
        await section.getByLabel(text.profile.next).fill('short');
        await section.getByLabel(text.profile.confirm).fill('short');
        await submit.click();
        await expect(section.getByText(text.short)).toBeVisible();
        await section.getByLabel(text.profile.next).fill('password');
        await section.getByLabel(text.profile.confirm).fill('password');
        await submit.click();
        await expect(section.getByText(text.weak)).toBeVisible();
        await section.getByLabel(text.profile.next).fill('a-much-better-passphrase');
        await section.getByLabel(text.profile.confirm).fill('a-much-better-passphrase');
        await submit.click();
        await expect(section.getByText(text.wrongCurrent)).toBeVisible();
        // Still signed in: a wrong current password ends nothing.
        await page.reload();
        await expect(page).toHaveURL(/\/settings\/profile$/);
      });
      await page.context().close();
    }
  });
});
