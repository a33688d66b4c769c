import { expect, test } from '@playwright/test';
import { admin, apiToken, createEnterprise, signIn, signInInFrench } from './support';

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

test.describe("an enterprise's usage and limits", () => {
  test('the admin sets a limit of people; the CEO sees "x of y" and is told why a person past it is refused', async ({ page, request }) => {
    const name = `Limited ${runId}`;
    const ceo = { email: `limits-ceo-${runId}@e2e.test`, password: 'limits-ceo-password', fullName: `Lena Limit ${runId}` };
    const id = await createEnterprise(request, await apiToken(request, admin), name, ceo);

    await signIn(page);
    await page.goto(`/admin/enterprises/${id}`);
    const card = page.getByRole('region', { name: 'Usage' });
    await expect(card.getByTestId('usage-people')).toContainText('People1');
    await expect(card.getByTestId('usage-api-limit')).toContainText('No limit');
    await card.getByRole('button', { name: 'Edit limits' }).click();
    const dialog = page.getByRole('dialog', { name: 'Limits of the enterprise' });
    await dialog.getByLabel('People').fill('2');
    await dialog.getByLabel('API calls per minute').fill('600');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(card.getByTestId('usage-people')).toContainText('1 of 2 people');
    await expect(card.getByTestId('usage-api-limit')).toContainText('At most 600 a minute');

    // The CEO: one more person fits, the next does not.
    const token = await apiToken(request, ceo);
    const person = (n: number) => ({
      fullName: `Pat Person ${n} ${runId}`,
      email: `limits-${n}-${runId}@e2e.test`,
      password: 'person-password-1',
      role: 'DepartmentUser',
    });
    const first = await request.post('/api/v1/users', { headers: { Authorization: `Bearer ${token}` }, data: person(1) });
    expect(first.status(), await first.text()).toBe(201);
    // The admin's tab becomes the CEO's.
    await page.evaluate(() => sessionStorage.clear());
    await signIn(page, ceo);
    await page.goto('/ceo');
    const own = page.getByRole('region', { name: 'Usage' });
    await expect(own.getByTestId('usage-people')).toContainText('2 of 2 people');
    await expect(own.getByRole('progressbar', { name: 'People: 2 of 2 people' })).toBeVisible();
    await expect(own.getByRole('button', { name: 'Edit limits' })).toHaveCount(0);
    // Its sign-ins and calls are counted day by day.
    await own.getByRole('radiogroup', { name: 'Show as' }).getByText('Table', { exact: true }).click();
    const today = own.getByRole('table', { name: 'Usage per day' }).getByRole('row').nth(1);
    await expect(today.getByRole('cell').nth(2)).not.toHaveText('0');

    await page.goto('/admin/users/create');
    await page.getByLabel(/^Full name/).fill(`Sam Second ${runId}`);
    await page.getByLabel(/^Email/).fill(`limits-2-${runId}@e2e.test`);
    await page.getByRole('radio', { name: 'Set a password now' }).check();
    await page.getByLabel(/^Password/).fill('person-password-2');
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/users') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Create user' }).click();
    expect((await answer).status()).toBe(409);
    await expect(page.getByRole('alert')).toContainText('Your enterprise has as many people as its limit allows.');
    await expect(page).toHaveURL(/\/admin\/users\/create$/);
  });

  test('in French, the admin reads the usage of an enterprise and refuses a limit of zero at its field', async ({ page, request }) => {
    const name = `Limitée ${runId}`;
    const ceo = { email: `limits-fr-${runId}@e2e.test`, password: 'limits-fr-password', fullName: `Léa Limite ${runId}` };
    const id = await createEnterprise(request, await apiToken(request, admin), name, ceo);
    await apiToken(request, ceo);
    await signInInFrench(page);
    await page.goto(`/admin/enterprises/${id}`);
    const card = page.getByRole('region', { name: 'Utilisation' });
    await expect(card.getByTestId('usage-people')).toContainText('Personnes1');
    await expect(card.getByTestId('usage-storage')).toContainText(/\d+(,\d)?\s(ko|Mo)/);
    await expect(card.getByTestId('usage-chart')).toBeVisible();
    await card.getByRole('button', { name: 'Modifier les limites' }).click();
    const dialog = page.getByRole('dialog', { name: "Limites de l'entreprise" });
    await dialog.getByLabel('Personnes').fill('0');
    await dialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(dialog.getByLabel('Personnes')).toHaveAttribute('aria-invalid', 'true');
    await expect(dialog).toContainText('Saisissez un nombre entier à partir de 1, ou laissez vide.');
    await dialog.getByLabel('Personnes').fill('');
    await dialog.getByLabel('Stockage (Mo)').fill('500');
    await dialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(dialog).toBeHidden();
    await expect(card.getByTestId('usage-storage')).toContainText(/utilisés sur 500\sMo/);
  });

  test("the admin's dashboard lists every enterprise's usage against its limits, sorted by the column chosen, in both languages", async ({ page, request }) => {
    // A name that sorts first from A: the run's other enterprises share the table.
    const name = `000 Usage ${runId}`;
    const ceo = { email: `usage-table-${runId}@e2e.test`, password: 'usage-table-password', fullName: `Uma Usage ${runId}` };
    const adminToken = await apiToken(request, admin);
    const id = await createEnterprise(request, adminToken, name, ceo);
    const ceoToken = await apiToken(request, ceo);
    for (const n of [1, 2]) {
      const made = await request.post('/api/v1/users', {
        headers: { Authorization: `Bearer ${ceoToken}` },
        data: { fullName: `Ulla ${n} ${runId}`, email: `usage-table-${n}-${runId}@e2e.test`, password: 'person-password-1', role: 'DepartmentUser' },
      });
      expect(made.status(), await made.text()).toBe(201);
    }
    const limited = await request.put(`/api/v1/enterprises/${id}/limits`, { headers: { Authorization: `Bearer ${adminToken}` }, data: { people: 40 } });
    expect(limited.status(), await limited.text()).toBe(200);

    await signIn(page);
    await page.goto('/admin');
    const region = page.getByRole('region', { name: 'Usage by enterprise' });
    const table = region.getByRole('table', { name: 'Usage by enterprise' });
    await expect(table.getByRole('columnheader', { name: 'Storage' })).toHaveAttribute('aria-sort', 'descending');
    await table.getByRole('button', { name: 'Enterprise' }).click();
    await expect(table.getByRole('columnheader', { name: 'Enterprise' })).toHaveAttribute('aria-sort', 'ascending');
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name }) });
    await expect(row).toContainText('3 of 40');
    await table.getByRole('button', { name: 'People' }).click();
    await expect(table.getByRole('columnheader', { name: 'People' })).toHaveAttribute('aria-sort', 'descending');
    await table.getByRole('button', { name: 'Enterprise' }).click();
    await row.getByRole('link', { name }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/enterprises/${id}$`));

    // In French.
    await page.evaluate(() => sessionStorage.clear());
    await signInInFrench(page);
    await page.goto('/admin');
    const région = page.getByRole('region', { name: 'Utilisation par entreprise' });
    const tableau = région.getByRole('table', { name: 'Utilisation par entreprise' });
    await tableau.getByRole('button', { name: 'Entreprise' }).click();
    await expect(tableau.getByRole('row').filter({ has: page.getByRole('link', { name }) })).toContainText('3 sur 40');
    // The dashboard's one period control sets the counts' period too.
    await page.getByRole('radiogroup', { name: 'Période', exact: true }).getByText('7 jours', { exact: true }).click();
    await expect(région).toContainText('ces 7 derniers jours (UTC)');
  });
});
