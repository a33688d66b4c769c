import { expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, createStaff, departmentId, signIn, signInInFrench } from './support';

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

test.describe.serial('erasure of a person', () => {
  const ceo = { fullName: `Erin Ceo ${runId}`, email: `erasure-ceo-${runId}@e2e.test`, password: 'erasure-ceo-password-1' };
  const zoe = { fullName: `Zoé Effacée ${runId}`, email: `erasure-zoe-${runId}@e2e.test`, password: 'erasure-zoe-password-1' };
  const yann = { fullName: `Yann Oublié ${runId}`, email: `erasure-yann-${runId}@e2e.test`, password: 'erasure-yann-password-1' };
  let reportId = '';

  test.beforeAll(async ({ request }) => {
    const adminToken = await apiToken(request, admin);
    const enterprise = await createEnterprise(request, adminToken, `Erasure ${runId}`, ceo);
    const ceoToken = await apiToken(request, ceo);
    const finance = await departmentId(request, ceoToken, enterprise, 'finance');
    await createStaff(request, ceoToken, zoe, finance);
    await createStaff(request, ceoToken, yann, finance);
    const report = await request.post(`/api/v1/departments/${finance}/reports`, {
      headers: bearer(await apiToken(request, zoe)),
      data: { title: `Budget ${runId}`, content: 'Figures', periodStart: '2026-07-01', periodEnd: '2026-09-30', status: 'submitted' },
    });
    expect(report.status(), await report.text()).toBe(201);
    reportId = ((await report.json()) as { id: string }).id;
  });

  test('a CEO erases a person: told what goes and what stays, then their report reads as by a former member', async ({ page, request }) => {
    await signIn(page, ceo);
    await page.goto(`/admin/users?q=${encodeURIComponent(zoe.email)}`);
    await page.getByRole('button', { name: `Actions for ${zoe.fullName}` }).click();
    await page.getByRole('menuitem', { name: 'Erase personal data' }).click();
    const dialog = page.getByRole('dialog', { name: "Erase this person's data?" });
    await expect(dialog).toContainText(`Erase the personal data of ${zoe.fullName}?`);
    await expect(dialog).toContainText('the messages they sent');
    await expect(dialog).toContainText('their reports, with their review history');
    await expect(dialog).toContainText('This action cannot be undone.');
    await dialog.getByRole('button', { name: 'Erase' }).click();

    const result = page.getByRole('dialog', { name: 'Personal data erased' });
    await expect(result).toContainText(`${zoe.fullName} now appears as a former member.`);
    await expect(result.getByRole('listitem').filter({ hasText: 'their e-mail address' })).toBeVisible();
    await expect(result.getByRole('listitem').filter({ hasText: 'the spreadsheets they made' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(result).toBeHidden();

    // Their address finds nobody now; the pseudonym is in the list, without an address.
    await expect(page.getByText('No user matches these filters')).toBeVisible();
    await page.goto('/admin/users?q=Former%20member');
    const row = page.getByTestId('user-row').filter({ hasText: 'Former member #1' });
    await expect(row).toContainText('No e-mail address (erased)');
    await expect(row).toContainText('Erased');
    expect((await request.post('/api/v1/auth/login', { data: zoe })).status()).toBe(401);

    await page.goto(`/ceo/reports/${reportId}`);
    await expect(page.getByRole('heading', { level: 1, name: `Budget ${runId}` })).toBeVisible();
    await expect(page.getByText('Former member #1').first()).toBeVisible();
    await expect(page.getByText(zoe.fullName)).toHaveCount(0);
  });

  test('the erasure reads in French', async ({ page }) => {
    await signInInFrench(page, ceo);
    await page.goto(`/admin/users?q=${encodeURIComponent(yann.email)}`);
    await page.getByRole('button', { name: `Actions pour ${yann.fullName}` }).click();
    await page.getByRole('menuitem', { name: 'Effacer les données personnelles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Effacer les données de cette personne ?' });
    await expect(dialog).toContainText(`Effacer les données personnelles de ${yann.fullName} ?`);
    await expect(dialog).toContainText('Cette action est irréversible.');
    await dialog.getByRole('button', { name: 'Effacer' }).click();
    const result = page.getByRole('dialog', { name: 'Données personnelles effacées' });
    await expect(result).toContainText(`${yann.fullName} apparaît désormais comme ancien membre.`);
    await expect(result.getByRole('listitem').filter({ hasText: 'son adresse e-mail' })).toBeVisible();
  });
});

test.describe("a directory's deletions", () => {
  test('the CEO chooses erasure; the directory (SCIM) then deletes someone who wrote a report, and they read as a former member', async ({ page, request }) => {
    const boss = { fullName: `Dana Directory ${runId}`, email: `directory-ceo-${runId}@e2e.test`, password: 'directory-ceo-password-1' };
    const leaver = { fullName: `Liam Leaving ${runId}`, email: `directory-leaver-${runId}@e2e.test`, password: 'directory-leaver-password-1' };
    const enterprise = await createEnterprise(request, await apiToken(request, admin), `Directory ${runId}`, boss);
    const ceoToken = await apiToken(request, boss);
    const finance = await departmentId(request, ceoToken, enterprise, 'finance');
    const leaverId = await createStaff(request, ceoToken, leaver, finance);
    const report = await request.post(`/api/v1/departments/${finance}/reports`, {
      headers: bearer(await apiToken(request, leaver)),
      data: { title: `Plan ${runId}`, content: 'Figures', periodStart: '2026-07-01', periodEnd: '2026-09-30', status: 'submitted' },
    });
    expect(report.status(), await report.text()).toBe(201);
    const credential = await request.post(`/api/v1/enterprises/${enterprise}/service-tokens`, {
      headers: bearer(ceoToken),
      data: { name: 'Directory', scopes: ['scim:read', 'scim:write'] },
    });
    expect(credential.status(), await credential.text()).toBe(201);
    const scimToken = ((await credential.json()) as { token: string }).token;

    await signIn(page, boss);
    await page.goto('/ceo/integrations');
    const card = page.getByRole('region', { name: 'When your directory deletes someone' });
    await expect(card.getByRole('radio', { name: 'Deletes their account' })).toBeChecked();
    await card.getByRole('radio', { name: 'Erases their personal data' }).check();
    await card.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Directory settings saved')).toBeVisible();

    const deleted = await request.delete(`/api/v1/scim/v2/Users/${leaverId}`, { headers: bearer(scimToken) });
    expect(deleted.status(), await deleted.text()).toBe(204);
    await page.goto(`/admin/users?q=${encodeURIComponent('Former member')}`);
    await expect(page.getByRole('table')).toContainText('Former member #1');

    // In French, the choice reads as made.
    await page.evaluate(() => sessionStorage.clear());
    await signInInFrench(page, boss);
    await page.goto('/ceo/integrations');
    const carte = page.getByRole('region', { name: "Quand votre annuaire supprime quelqu'un" });
    await expect(carte.getByRole('radio', { name: 'Efface ses données personnelles' })).toBeChecked();
    await expect(carte.getByRole('button', { name: 'Enregistrer' })).toBeDisabled();
  });
});
