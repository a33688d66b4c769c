import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import { admin, apiToken, createEnterprise, createStaff, departmentId, sidebar, signIn } from './support';

/**
 * Running an enterprise after it is made, by clicking: the admin edits and saves it, deactivates
 * and activates it again; its CEO edits a person, changes their role, deactivates and activates
 * them; and manages a department beyond naming its head (its description, a member added and
 * removed, the head cleared). Each change is checked where it shows and against the server.
 */

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

const ceo = { fullName: `Ada Admin-Flows ${runId}`, email: `flows-ceo-${runId}@e2e.test`, password: 'flows-ceo-password-1' };
const bob = { fullName: `Bob Flows ${runId}`, email: `flows-bob-${runId}@e2e.test`, password: 'flows-bob-password-1' };
const cleo = { fullName: `Cleo Flows ${runId}`, email: `flows-cleo-${runId}@e2e.test`, password: 'flows-cleo-password-1' };
const name = `Flows ${runId}`;

/** Whether these credentials sign in through the API now. */
async function signsIn(request: APIRequestContext, credentials: { email: string; password: string }): Promise<number> {
  return (await request.post('/api/v1/auth/login', { data: credentials })).status();
}

/** The row of a person in the user list. */
const userRow = (page: Page, fullName: string) => page.getByRole('row', { name: new RegExp(fullName) });

/** Opens the actions menu of a person's row and picks one. */
async function userAction(page: Page, fullName: string, action: string) {
  await userRow(page, fullName)
    .getByRole('button', { name: `Actions for ${fullName}` })
    .click();
  await page.getByRole('menuitem', { name: action }).click();
}

test.describe.serial('running an enterprise', () => {
  let enterpriseId = '';

  test.beforeAll(async ({ request }) => {
    const adminToken = await apiToken(request, admin);
    enterpriseId = await createEnterprise(request, adminToken, name, ceo);
    const ceoToken = await apiToken(request, ceo);
    const finance = await departmentId(request, ceoToken, enterpriseId, 'finance');
    await createStaff(request, ceoToken, bob, finance);
    await createStaff(request, ceoToken, cleo);
  });

  test('the admin edits the enterprise, saves it, and the change stays after a reload', async ({ page }) => {
    await signIn(page);
    await page.goto(`/admin/enterprises/${enterpriseId}`);
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
    // The same words for a missing description as the departments use.
    await expect(page.getByRole('region', { name: 'Overview' }).getByText('No description yet.')).toBeVisible();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Edit ${name}` });
    await dialog.getByLabel(/^Name/).fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText('This field is required')).toBeVisible();
    await dialog.getByLabel(/^Name/).fill(`${name} Ltd`);
    await dialog.getByLabel(/^Description/).fill('Runs the flows of the end-to-end suite');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText('Enterprise updated')).toBeVisible();
    await expect(page.getByRole('heading', { level: 1, name: `${name} Ltd` })).toBeVisible();

    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: `${name} Ltd` })).toBeVisible();
    await expect(page.getByText('Runs the flows of the end-to-end suite')).toBeVisible();
  });

  test('a text past its limit says the limit, in English and in French', async ({ page }) => {
    const texts = {
      en: { edit: 'Edit', title: `Edit ${name} Ltd`, name: /^Name/, save: 'Save', tooLong: 'This text is too long: at most 200 characters' },
      fr: { edit: 'Modifier', title: `Modifier ${name} Ltd`, name: /^Nom/, save: 'Enregistrer', tooLong: 'Ce texte est trop long : 200 caractères au plus' },
    };
    await signIn(page);
    for (const locale of ['en', 'fr'] as const) {
      const T = texts[locale];
      await page.evaluate((value) => window.localStorage.setItem('locale', value), locale);
      await page.goto(`/admin/enterprises/${enterpriseId}`);
      await page.getByRole('button', { name: T.edit, exact: true }).click();
      const dialog = page.getByRole('dialog', { name: T.title });
      const field = dialog.getByLabel(T.name);
      await field.fill('n'.repeat(201));
      await dialog.getByRole('button', { name: T.save }).click();
      await expect(field).toHaveAccessibleDescription(T.tooLong);
    }
    await page.evaluate(() => window.localStorage.setItem('locale', 'en'));
  });

  test('the admin deactivates it after a confirmation, its people cannot sign in, and activates it again', async ({ page, request }) => {
    await signIn(page);
    await page.goto(`/admin/enterprises/${enterpriseId}`);
    await page.getByRole('button', { name: 'Deactivate', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Deactivate this enterprise?' });
    await expect(confirm).toContainText(`Deactivate ${name} Ltd? Everyone in it is signed out at once`);
    await confirm.getByRole('button', { name: 'Deactivate' }).click();
    await expect(page.getByText(`${name} Ltd was deactivated.`)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Activate', exact: true })).toBeVisible();
    expect(await signsIn(request, ceo)).toBe(403);
    expect(await signsIn(request, bob)).toBe(403);

    await page.getByRole('button', { name: 'Activate', exact: true }).click();
    await expect(page.getByText(`${name} Ltd is active again: its people can sign in.`)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Deactivate', exact: true })).toBeVisible();
    expect(await signsIn(request, ceo)).toBe(200);
  });

  test('its CEO edits a person and makes them a department head', async ({ page, request }) => {
    await signIn(page, ceo);
    await sidebar(page).getByRole('link', { name: 'Users' }).click();
    await expect(userRow(page, bob.fullName)).toContainText('Department user');
    await userAction(page, bob.fullName, 'Edit');
    const dialog = page.getByRole('dialog', { name: `Edit ${bob.fullName}` });
    await dialog.getByLabel(/^Full name/).fill(`${bob.fullName} Jr`);
    await dialog.getByRole('combobox', { name: /^Role/ }).click();
    await page.getByRole('option', { name: 'Department head' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText(`${bob.fullName} Jr was updated`)).toBeVisible();
    const row = userRow(page, `${bob.fullName} Jr`);
    await expect(row).toContainText('Department head');
    await expect(row).toContainText('Finance');

    // The server agrees, and the password was kept (the field was left empty).
    const token = await apiToken(request, bob);
    const me = (await (await request.get('/api/v1/auth/me', { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      fullName: string;
      role: string;
    };
    expect([me.fullName, me.role]).toEqual([`${bob.fullName} Jr`, 'DepartmentHead']);
  });

  test('its CEO deactivates a person after a confirmation, who cannot sign in until activated again', async ({ page, request }) => {
    await signIn(page, ceo);
    await sidebar(page).getByRole('link', { name: 'Users' }).click();
    await userAction(page, cleo.fullName, 'Deactivate');
    const confirm = page.getByRole('dialog', { name: 'Deactivate this account?' });
    await expect(confirm).toContainText(`Deactivate ${cleo.fullName}?`);
    await confirm.getByRole('button', { name: 'Deactivate' }).click();
    await expect(page.getByText(`${cleo.fullName} was deactivated.`)).toBeVisible();
    await expect(userRow(page, cleo.fullName)).toContainText('Inactive');
    expect(await signsIn(request, cleo)).toBe(403);

    await userAction(page, cleo.fullName, 'Activate');
    await expect(page.getByText(`${cleo.fullName} can sign in again.`)).toBeVisible();
    await expect(userRow(page, cleo.fullName)).toContainText('Active');
    expect(await signsIn(request, cleo)).toBe(200);
  });

  test('its CEO describes a department, adds a member, removes them, and clears its head', async ({ page, request }) => {
    await signIn(page, ceo);
    await sidebar(page).getByRole('link', { name: 'My enterprise' }).click();
    const finance = page.getByRole('region', { name: 'Finance', exact: true });
    await expect(finance.getByText('No description yet.')).toBeVisible();

    await finance.getByRole('button', { name: 'Edit description' }).click();
    const describe = page.getByRole('dialog', { name: 'Description of Finance' });
    await describe.getByLabel(/^Description/).fill('Books, budgets and the quarter close');
    await describe.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('The description of Finance was saved')).toBeVisible();
    await expect(finance.getByText('Books, budgets and the quarter close')).toBeVisible();

    await finance.getByRole('button', { name: 'Add member' }).click();
    const add = page.getByRole('dialog', { name: 'Add a member to Finance' });
    await add.getByRole('combobox', { name: /^Person/ }).fill(`flows-cleo-${runId}`);
    await page.getByRole('option', { name: new RegExp(cleo.fullName) }).click();
    await add.getByRole('button', { name: 'Add member' }).click();
    await expect(page.getByText(`${cleo.fullName} was added to Finance`)).toBeVisible();
    const members = finance.getByRole('list', { name: 'Members of Finance' });
    await expect(members).toContainText(cleo.fullName);

    await finance.getByRole('button', { name: `Remove ${cleo.fullName} from Finance` }).click();
    const remove = page.getByRole('dialog', { name: 'Remove from Finance' });
    await expect(remove).toContainText(`Remove ${cleo.fullName} from Finance?`);
    await remove.getByRole('button', { name: 'Remove' }).click();
    await expect(page.getByText(`${cleo.fullName} was removed from Finance`)).toBeVisible();
    await expect(members).not.toContainText(cleo.fullName);

    // Bob (a department head since the test before) is made Finance's head, then it has none again.
    await finance.getByRole('button', { name: 'Set head' }).click();
    const head = page.getByRole('dialog', { name: 'Head of Finance' });
    await head.getByRole('combobox', { name: /^New head/ }).fill(`flows-bob-${runId}`);
    await page.getByRole('option', { name: new RegExp(bob.fullName) }).click();
    await head.getByRole('button', { name: 'Set as head' }).click();
    await expect(page.getByText(`${bob.fullName} Jr is now the head of Finance`)).toBeVisible();
    await expect(finance.getByTestId('department-head')).toHaveText(`${bob.fullName} Jr`);
    await finance.getByRole('button', { name: 'Clear head' }).click();
    await expect(page.getByText('Finance no longer has a head')).toBeVisible();
    await expect(finance.getByTestId('department-head')).toHaveText('No head');

    const token = await apiToken(request, ceo);
    const response = await request.get(`/api/v1/enterprises/${enterpriseId}/departments`, { headers: { Authorization: `Bearer ${token}` } });
    const departments = (await response.json()) as { type: string; description: string; head: unknown; members: { fullName: string }[] }[];
    const saved = departments.find((department) => department.type === 'finance')!;
    expect([saved.description, saved.head, saved.members.map((member) => member.fullName)]).toEqual([
      'Books, budgets and the quarter close',
      null,
      [`${bob.fullName} Jr`],
    ]);
  });
});
