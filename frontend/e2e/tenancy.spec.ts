import { type APIRequestContext, expect, test } from '@playwright/test';
import { settle } from './screens';
import { admin, sidebar, signIn, signInInFrench } from './support';

const DEPARTMENTS = ['Finance', 'Operations', 'Sales and marketing', 'Human resources', 'Information technology'];

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

async function apiToken(request: APIRequestContext, credentials = admin): Promise<string> {
  const response = await request.post('/api/v1/auth/login', { data: credentials });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

test.describe.serial('tenancy', () => {
  const enterprise = {
    name: `Acme ${runId}`,
    ceoName: `Cora Ceo ${runId}`,
    ceoEmail: `ceo-${runId}@e2e.test`,
    ceoPassword: 'ceo-password-1',
  };

  test('the admin creates an enterprise through the form and finds it in the list and its detail', async ({ page }) => {
    await signIn(page);
    await sidebar(page).getByRole('link', { name: 'Enterprises' }).click();
    await expect(page).toHaveURL(/\/admin\/enterprises$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Enterprises' })).toBeVisible();

    await page.getByRole('link', { name: 'Create enterprise' }).first().click();
    await expect(page.getByRole('heading', { level: 1, name: 'Create an enterprise' })).toBeVisible();
    // The CEO is invited by default; here the admin sets their password.
    await page.getByRole('radio', { name: 'Set a password now' }).check();
    await expect(page.getByText('Minimum 8 characters required')).toBeVisible();

    // The client checks first, with the texts of SPEC §5.
    const submit = page.getByRole('button', { name: 'Create enterprise' });
    await submit.click();
    await expect(page.getByText('This field is required')).toHaveCount(4);
    await page.getByLabel(/^Name/).fill(enterprise.name);
    await page.getByLabel(/^Description/).fill('Made by the end-to-end suite');
    await page.getByLabel(/^CEO full name/).fill(enterprise.ceoName);
    await page.getByLabel(/^CEO email/).fill('not-an-email');
    await page.getByLabel(/^CEO password/).fill('short');
    await submit.click();
    await expect(page.getByText('Please enter a valid email address')).toBeVisible();
    await expect(page.getByText('Password must be at least 8 characters')).toBeVisible();

    await page.getByLabel(/^CEO email/).fill(enterprise.ceoEmail);
    await page.getByLabel(/^CEO password/).fill(enterprise.ceoPassword);
    await submit.click();

    await expect(page.getByText('Enterprise created successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/admin\/enterprises\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { level: 1, name: enterprise.name })).toBeVisible();
    await expect(page.getByText(`${enterprise.ceoName} · ${enterprise.ceoEmail}`)).toBeVisible();
    for (const department of DEPARTMENTS) {
      await expect(page.getByRole('region', { name: department, exact: true })).toBeVisible();
    }
    await expect(page.getByRole('region', { name: 'Finance', exact: true }).getByTestId('department-head')).toHaveText('No head');

    // The list shows it, with its CEO and status, and leads back to it.
    await page.getByRole('link', { name: 'Back to enterprises' }).click();
    // On the list first: the detail page has search fields of its own (its cards' pickers).
    await expect(page).toHaveURL(/\/admin\/enterprises$/);
    // The list settled first: once in CI, text typed the moment the list showed was gone from the
    // box a moment later, and never searched (not reproduced since; see the note).
    await settle(page);
    await page.getByLabel('Search').fill(enterprise.name);
    await expect(page).toHaveURL(/[?&]q=/);
    const row = page.getByRole('row', { name: new RegExp(enterprise.name) });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(enterprise.ceoEmail);
    await expect(row).toContainText('Active');
    await row.getByRole('link', { name: enterprise.name }).click();
    await expect(page.getByRole('heading', { level: 1, name: enterprise.name })).toBeVisible();
  });

  test('a name another enterprise has, in another case or with accents, is refused under the Name field', async ({ page, request }) => {
    const headers = { Authorization: `Bearer ${await apiToken(request)}` };
    // "Acme <run>" exists (the test above): "ACMÉ <RUN>" is the same name.
    const variant = `ACMÉ ${runId.toUpperCase()}`;
    const taken = 'An enterprise with this name already exists (names are compared ignoring case and accents). Choose another one.';
    await signIn(page);
    await page.goto('/admin/enterprises/create');
    await expect(page.getByRole('heading', { level: 1, name: 'Create an enterprise' })).toBeVisible();
    await page.getByLabel(/^Name/).fill(variant);
    await page.getByLabel(/^CEO full name/).fill(`Vera Variant ${runId}`);
    await page.getByLabel(/^CEO email/).fill(`variant-${runId}@e2e.test`);
    await page.getByRole('radio', { name: 'Set a password now' }).check();
    await page.getByLabel(/^CEO password/).fill('variant-password-1');
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/enterprises') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Create enterprise' }).click();
    expect((await answer).status()).toBe(409);

    await expect(page.getByText('Failed to create enterprise')).toBeVisible();
    const name = page.getByLabel(/^Name/);
    await expect(name).toHaveAccessibleDescription(taken);
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(name).toBeFocused();
    await expect(page.getByLabel(/^CEO email/)).not.toHaveAttribute('aria-invalid', 'true');
    await expect(page).toHaveURL(/\/admin\/enterprises\/create$/);

    // Nothing was made: the search (which ignores case, not accents) finds the first one only.
    const found = await request.get(`/api/v1/enterprises?q=${encodeURIComponent(runId)}`, { headers });
    expect(((await found.json()) as { items: { name: string }[] }).items.map((e) => e.name)).toEqual([enterprise.name]);

    // A genuinely different name goes through.
    await name.fill(`Acme Two ${runId}`);
    await page.getByRole('button', { name: 'Create enterprise' }).click();
    await expect(page.getByText('Enterprise created successfully')).toBeVisible();
    await expect(page.getByRole('heading', { level: 1, name: `Acme Two ${runId}` })).toBeVisible();
  });

  test('its CEO creates a department head, then makes them head of Finance', async ({ page }) => {
    const head = { name: `Hal Head ${runId}`, email: `head-${runId}@e2e.test`, password: 'head-password-1' };
    await signIn(page, { email: enterprise.ceoEmail, password: enterprise.ceoPassword });
    await expect(sidebar(page).getByRole('link')).toHaveText([
      'Dashboard',
      'My enterprise',
      'Reports',
      'Users',
      'Messages',
      'Monitoring',
      'Integrations',
      'Audit log',
    ]);

    // A CEO on an admin-only screen lands on their own home.
    await page.goto('/admin/enterprises');
    await expect(page).toHaveURL(/\/ceo$/);
    await expect(page.getByRole('heading', { level: 1, name: enterprise.name })).toBeVisible();

    await page.goto('/admin/users/create');
    await expect(page.getByRole('heading', { level: 1, name: 'Create a user' })).toBeVisible();
    await page.getByLabel(/^Full name/).fill(head.name);
    await page.getByLabel(/^Email/).fill(head.email);
    await page.getByRole('radio', { name: 'Set a password now' }).check();
    await page.getByLabel(/^Password/).fill(head.password);
    await page.getByRole('combobox', { name: /^Role/ }).click();
    await expect(page.getByRole('option')).toHaveText(['Department head', 'Department user']);
    await page.getByRole('option', { name: 'Department head' }).click();
    await expect(page.getByRole('combobox', { name: /^Enterprise/ })).toHaveCount(0);
    await page.getByRole('button', { name: 'Create user' }).click();

    await expect(page.getByText(`User ${head.name} created successfully`)).toBeVisible();
    await expect(page).toHaveURL(/\/admin\/users$/);
    const row = page.getByRole('row', { name: new RegExp(head.name) });
    await expect(row).toContainText('Department head');
    await expect(row).toContainText('No department');

    await sidebar(page).getByRole('link', { name: 'My enterprise' }).click();
    await expect(page).toHaveURL(/\/ceo$/);
    // Exactly: "1" must not pass for "10" or "15".
    await expect(page.getByTestId('ceo-summary-departments').locator('dt')).toHaveText('Departments');
    await expect(page.getByTestId('ceo-summary-departments').locator('dd')).toHaveText('5');
    await expect(page.getByTestId('ceo-summary-staff').locator('dt')).toHaveText('Department staff');
    await expect(page.getByTestId('ceo-summary-staff').locator('dd')).toHaveText('1');

    const finance = page.getByRole('region', { name: 'Finance', exact: true });
    await finance.getByRole('button', { name: 'Set head' }).click();
    const dialog = page.getByRole('dialog', { name: 'Head of Finance' });
    await expect(dialog).toBeVisible();
    // The picker searches the enterprise's staff on the server as you type.
    const searched = page.waitForRequest((request) => request.url().includes('/users?') && request.url().includes(`q=head-${runId}`));
    await dialog.getByRole('combobox', { name: /^New head/ }).fill(`head-${runId}`);
    await searched;
    await page.getByRole('option', { name: new RegExp(head.name) }).click();
    await dialog.getByRole('button', { name: 'Set as head' }).click();
    await expect(dialog).toBeHidden();

    await expect(page.getByText(`${head.name} is now the head of Finance`)).toBeVisible();
    await expect(finance.getByTestId('department-head')).toHaveText(head.name);
    await expect(finance.getByRole('list', { name: 'Members of Finance' })).toContainText(head.name);

    // The user list follows: they are in Finance now.
    await sidebar(page).getByRole('link', { name: 'Users' }).click();
    await expect(page.getByRole('row', { name: new RegExp(head.name) })).toContainText('Finance');
  });

  test('an admin opening the CEO home lands on the admin dashboard, not in a loop', async ({ page }) => {
    await signIn(page);
    await page.goto('/ceo');
    await expect(page).toHaveURL(/\/admin$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Administration' })).toBeVisible();
    await expect(page.getByTestId('admin-chart-activity').locator('svg').first()).toBeVisible();
    const week = page.waitForResponse((r) => r.url().includes('/api/v1/admin/statistics?days=7') && r.ok());
    await page.getByText('7 days', { exact: true }).click();
    await week;
    await expect(page.getByTestId('admin-chart-reports').locator('svg').first()).toBeVisible();
  });

  test('the admin deletes an enterprise through the confirmation modal, restores it, then purges it for good', async ({ page, request }) => {
    const headers = { Authorization: `Bearer ${await apiToken(request)}` };
    const doomed = `Doomed ${runId}`;
    const ceo = { email: `doomed-${runId}@e2e.test`, password: 'doomed-password-1' };
    const created = await request.post('/api/v1/enterprises', {
      headers,
      data: { name: doomed, ceoFullName: `Dora ${runId}`, ceoEmail: ceo.email, ceoPassword: ceo.password },
    });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const ceoSignIn = async () => (await request.post('/api/v1/auth/login', { data: ceo })).status();

    await signIn(page);
    await sidebar(page).getByRole('link', { name: 'Enterprises' }).click();
    await expect(page).toHaveURL(/\/admin\/enterprises$/);
    // Other spec files make enterprises meanwhile (they run side by side): searched, not paged.
    await page.getByLabel('Search').fill(doomed);
    await page.getByLabel('Search').press('Enter');
    await expect(page).toHaveURL(/\/admin\/enterprises\?q=/);
    await page.getByRole('link', { name: doomed }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/enterprises/${id}$`));
    await expect(page.getByRole('heading', { level: 1, name: doomed })).toBeVisible();

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete enterprise' });
    await expect(dialog).toContainText(`Are you sure you want to delete the enterprise “${doomed}”?`);
    await expect(dialog).toContainText('You can restore it until its recovery window ends.');
    await expect(dialog).toContainText('Once the recovery window ends, this action cannot be undone.');
    await expect(dialog).toContainText('All associated data will then be permanently removed');
    await expect(dialog).toContainText('its departments');
    await expect(dialog).toContainText('its users');
    await expect(dialog).toContainText('its reports');
    await expect(dialog).toContainText('To keep a copy of its data, export it first (“Export all data”, on its page).');
    // The red button waits for the exact name, typed into the field that has the focus.
    const confirm = dialog.getByRole('button', { name: 'Delete enterprise' });
    const typed = dialog.getByRole('textbox', { name: "Type the enterprise's name to confirm" });
    await expect(typed).toBeFocused();
    await expect(typed).toHaveAccessibleDescription(`Type “${doomed}” exactly as shown.`);
    await expect(confirm).toBeDisabled();
    await page.keyboard.type(doomed.toLowerCase());
    await page.keyboard.press('Enter');
    await expect(confirm).toBeDisabled();
    await expect(dialog).toBeVisible();
    expect(await ceoSignIn()).toBe(200);
    await typed.fill(doomed);
    await expect(confirm).toBeEnabled();
    await confirm.click();

    // The toast first, read as it shows: it closes by itself after four seconds, which the checks
    // below took on a loaded machine (the test failed there once).
    const toast = page.getByText(`The enterprise “${doomed}” was deleted: it will be purged on`);
    await expect(toast).toBeVisible();
    const told = await toast.textContent();
    // Suspended, not gone: the page says until when, and nobody of it signs in.
    const banner = page.getByRole('region', { name: 'Deletion scheduled' });
    await expect(banner).toContainText(`${doomed} is suspended: nobody can sign in, and its tokens and webhooks are stopped.`);
    const scheduled = (await (await request.get(`/api/v1/enterprises/${id}`, { headers })).json()) as { purgeAfter: string; isActive: boolean };
    expect(scheduled.isActive).toBe(false);
    const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(new Date(scheduled.purgeAfter));
    await expect(banner).toContainText(`Its data will be erased for good on ${date}.`);
    expect(told).toContain(`The enterprise “${doomed}” was deleted: it will be purged on ${date} unless it is restored`);
    expect(await ceoSignIn()).toBe(403);
    await page.getByRole('link', { name: 'Back to enterprises' }).click();
    await expect(page).toHaveURL(/\/admin\/enterprises$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Enterprises' })).toBeVisible();
    // The list searched for it, opened by its address: typed into the box, the search once landed
    // on the enterprise's own page instead (its users' search box has the same label), seen twice
    // on a loaded machine.
    await page.goto(`/admin/enterprises?q=${encodeURIComponent(doomed)}`);
    await expect(page.getByRole('row', { name: new RegExp(doomed) })).toContainText('Deletion scheduled');
    await page.getByRole('link', { name: doomed }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/enterprises/${id}$`));

    // Restored as it was: the same password signs in again.
    await banner.getByRole('button', { name: 'Restore' }).click();
    await expect(page.getByText(`${doomed} was restored: nothing was lost.`)).toBeVisible();
    await expect(banner).toBeHidden();
    expect(await ceoSignIn()).toBe(200);

    // Deleted again, then purged now, behind its name typed once more.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('textbox', { name: "Type the enterprise's name to confirm" }).fill(doomed);
    await dialog.getByRole('button', { name: 'Delete enterprise' }).click();
    await banner.getByRole('button', { name: 'Purge now' }).click();
    const purge = page.getByRole('dialog', { name: 'Purge enterprise now' });
    await expect(purge).toContainText(`Purge the enterprise “${doomed}” now, without waiting for`);
    await expect(purge).toContainText('This action cannot be undone.');
    const purgeButton = purge.getByRole('button', { name: 'Purge enterprise' });
    await expect(purgeButton).toBeDisabled();
    await purge.getByRole('textbox', { name: "Type the enterprise's name to confirm" }).fill(doomed);
    await purgeButton.click();

    await expect(page).toHaveURL(/\/admin\/enterprises$/);
    await expect(page.getByText(`The enterprise “${doomed}” was purged`)).toBeVisible();
    await page.getByLabel('Search').fill(runId);
    await expect(page.getByRole('link', { name: enterprise.name })).toBeVisible();
    await expect(page.getByRole('link', { name: doomed })).toHaveCount(0);
    await page.getByLabel('Search').fill(doomed);
    await expect(page.getByText('No enterprise matches these filters')).toBeVisible();

    expect((await request.get(`/api/v1/enterprises/${id}`, { headers })).status()).toBe(404);
    expect(await ceoSignIn()).toBe(401);
  });

  test('deleting and restoring an enterprise reads in French', async ({ page, request }) => {
    const headers = { Authorization: `Bearer ${await apiToken(request)}` };
    const name = `Sursis ${runId}`;
    const created = await request.post('/api/v1/enterprises', {
      headers,
      data: { name, ceoFullName: `Serge ${runId}`, ceoEmail: `sursis-${runId}@e2e.test`, ceoPassword: 'sursis-password-1' },
    });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    await signInInFrench(page);
    await page.goto(`/admin/enterprises/${id}`);
    await page.getByRole('button', { name: 'Supprimer', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: "Supprimer l'entreprise" });
    await expect(dialog).toContainText(`Voulez-vous vraiment supprimer l'entreprise « ${name} » ?`);
    await expect(dialog).toContainText('Une fois la période de récupération terminée, cette action est irréversible.');
    await dialog.getByRole('textbox', { name: "Saisissez le nom de l'entreprise pour confirmer" }).fill(name);
    await dialog.getByRole('button', { name: "Supprimer l'entreprise" }).click();

    const banner = page.getByRole('region', { name: 'Suppression programmée' });
    // The banner first: it shows once the deletion is done, and only then has the enterprise a
    // purge date to read (read before, it was none: 1 January 1970).
    await expect(banner).toContainText(`${name} est suspendue : personne ne peut se connecter`);
    const { purgeAfter } = (await (await request.get(`/api/v1/enterprises/${id}`, { headers })).json()) as { purgeAfter: string };
    expect(purgeAfter).toBeTruthy();
    const date = new Intl.DateTimeFormat('fr', { dateStyle: 'medium' }).format(new Date(purgeAfter));
    await expect(banner).toContainText(`Ses données seront effacées définitivement le ${date}.`);
    await banner.getByRole('button', { name: 'Restaurer' }).click();
    await expect(page.getByText(`${name} a été restaurée : rien n'a été perdu.`)).toBeVisible();
    await expect(banner).toBeHidden();
    expect(((await (await request.get(`/api/v1/enterprises/${id}`, { headers })).json()) as { isActive: boolean }).isActive).toBe(true);
  });

  test('a CEO giving a new user an address an account of another enterprise has is told only that it cannot be used, in English and in French', async ({
    page,
    request,
  }) => {
    // The address belongs to the CEO of another enterprise.
    const elsewhere = `elsewhere-${runId}@e2e.test`;
    const other = await request.post('/api/v1/enterprises', {
      headers: { Authorization: `Bearer ${await apiToken(request)}` },
      data: { name: `Elsewhere ${runId}`, ceoFullName: `Elsa Elsewhere ${runId}`, ceoEmail: elsewhere, ceoPassword: 'elsewhere-password-1' },
    });
    expect(other.status(), await other.text()).toBe(201);
    const texts = {
      en: {
        fullName: /^Full name/,
        email: /^Email/,
        password: /^Password/,
        setPassword: 'Set a password now',
        submit: 'Create user',
        failed: 'Failed to create user',
        taken: 'This email address cannot be used. Choose another one.',
      },
      fr: {
        fullName: /^Nom complet/,
        email: /^E-mail/,
        password: /^Mot de passe/,
        setPassword: 'Définir un mot de passe maintenant',
        submit: "Créer l'utilisateur",
        failed: "Échec de la création de l'utilisateur",
        taken: 'Cette adresse e-mail ne peut pas être utilisée. Choisissez-en une autre.',
      },
    };
    await signIn(page, { email: enterprise.ceoEmail, password: enterprise.ceoPassword });
    for (const locale of ['en', 'fr'] as const) {
      const T = texts[locale];
      await page.evaluate((value) => window.localStorage.setItem('locale', value), locale);
      await page.goto('/admin/users/create');
      await page.getByLabel(T.fullName).fill(`Sam Same ${runId}`);
      await page.getByLabel(T.email).fill(elsewhere);
      await page.getByRole('radio', { name: T.setPassword }).check();
      await page.getByLabel(T.password).fill('same-password-1');
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/users') && r.request().method() === 'POST');
      await page.getByRole('button', { name: T.submit }).click();
      expect((await answer).status()).toBe(409);

      const email = page.getByLabel(T.email);
      await expect(email).toHaveAttribute('aria-invalid', 'true');
      await expect(email).toHaveAccessibleDescription(T.taken);
      await expect(page.getByRole('alert').filter({ hasText: T.failed })).toContainText(T.taken);
      // Nothing says that the address is someone's, here or elsewhere.
      const shown = await page.locator('body').innerText();
      expect(shown).toContain(T.taken);
      expect(shown).not.toMatch(
        /another account|other account|already (in use|used|exists|registered)|autre compte|déjà (utilisée|pris|associée|enregistrée)|existe déjà/i,
      );
      await expect(page).toHaveURL(/\/admin\/users\/create$/);
    }
  });
});
