import { readFileSync } from 'node:fs';
import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import { admin } from './support';

type Messages = { [key: string]: string | Messages };
const load = (locale: string) => JSON.parse(readFileSync(new URL(`../src/i18n/locales/${locale}.json`, import.meta.url), 'utf8')) as Messages;

/** A translator over the app's own message files, so the spec asserts what users read. */
function translator(locale: 'en' | 'fr') {
  const messages = load(locale);
  return (key: string, values: Record<string, string | number> = {}): string => {
    const text = key.split('.').reduce<string | Messages>((node, part) => (node as Messages)[part], messages);
    if (typeof text !== 'string') throw new Error(`No text for ${key}`);
    return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name]));
  };
}

const exact = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

async function apiToken(request: APIRequestContext, credentials: { email: string; password: string }): Promise<string> {
  const response = await request.post('/api/v1/auth/login', { data: credentials });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

for (const locale of ['en', 'fr'] as const) {
  test.describe.serial(`reports (${locale})`, () => {
    const t = translator(locale);
    const runId = `${locale}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
    const ceo = { email: `rceo-${runId}@e2e.test`, password: 'ceo-password-1' };
    const author = { name: `Ada Author ${runId}`, email: `author-${runId}@e2e.test`, password: 'author-password-1' };
    const title = `Quarterly figures ${runId}`;
    const notes = { reject: `Revenue for South looks wrong ${runId}`, approve: `Thanks, approved ${runId}` };
    let reportUrl = '';
    let enterpriseId = '';

    async function signIn(page: Page, credentials: { email: string; password: string }) {
      await page.addInitScript((value) => window.localStorage.setItem('locale', value), locale);
      await page.goto('/login');
      await page.getByLabel(new RegExp(`^${t('auth.email')}`)).fill(credentials.email);
      await page.getByLabel(new RegExp(`^${t('auth.password')}`)).fill(credentials.password);
      await page.getByRole('button', { name: t('auth.login.submit') }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
    }
    const nav = (page: Page) => page.getByRole('navigation', { name: t('nav.label') });
    const status = (page: Page) => page.getByTestId('report-status');

    test.beforeAll(async ({ request }) => {
      const adminHeaders = { Authorization: `Bearer ${await apiToken(request, admin)}` };
      const created = await request.post('/api/v1/enterprises', {
        headers: adminHeaders,
        data: { name: `Reports ${runId}`, ceoFullName: `Cole Ceo ${runId}`, ceoEmail: ceo.email, ceoPassword: ceo.password },
      });
      expect(created.status()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      enterpriseId = id;

      const ceoHeaders = { Authorization: `Bearer ${await apiToken(request, ceo)}` };
      const departments = (await (await request.get(`/api/v1/enterprises/${id}/departments`, { headers: ceoHeaders })).json()) as {
        id: string;
        type: string;
      }[];
      const finance = departments.find((d) => d.type === 'finance')!;
      const user = await request.post('/api/v1/users', {
        headers: ceoHeaders,
        data: { fullName: author.name, email: author.email, password: author.password, role: 'DepartmentUser', departmentId: finance.id },
      });
      expect(user.status()).toBe(201);
    });

    test('the author writes a report with a table, saves it as a draft, then submits it', async ({ page }) => {
      await signIn(page, author);
      await nav(page)
        .getByRole('link', { name: t('nav.reports') })
        .click();
      await expect(page).toHaveURL(/\/department\/[0-9a-f-]{36}\/reports$/);
      await expect(page.getByText(t('reports.list.empty'))).toBeVisible();
      await page
        .getByRole('link', { name: t('reports.new') })
        .first()
        .click();
      await expect(page.getByRole('heading', { level: 1, name: t('reports.form.createTitle') })).toBeVisible();

      const saveDraft = page.getByRole('button', { name: t('reports.form.saveDraft') });
      await saveDraft.click();
      await expect(page.getByText(t('validation.required'))).toHaveCount(4);

      await page.getByLabel(new RegExp(`^${t('reports.fields.title')}`)).fill(title);
      await page.getByLabel(new RegExp(`^${t('reports.fields.content')}`)).fill('Sales went up in the North.');
      await page.getByLabel(new RegExp(`^${t('reports.fields.periodStart')}`)).fill('2026-03-31');
      await page.getByLabel(new RegExp(`^${t('reports.fields.periodEnd')}`)).fill('2026-01-01');
      await saveDraft.click();
      await expect(page.getByText(t('reports.validation.periodOrder'))).toBeVisible();
      await page.getByLabel(new RegExp(`^${t('reports.fields.periodStart')}`)).fill('2026-01-01');
      await page.getByLabel(new RegExp(`^${t('reports.fields.periodEnd')}`)).fill('2026-03-31');

      // The table: 2 columns, 3 rows.
      await page.getByRole('button', { name: t('reports.table.addColumn') }).click();
      await page.getByRole('button', { name: t('reports.table.addColumn') }).click();
      await page.getByLabel(t('reports.table.columnName', { n: 1 })).fill('Region');
      await page.getByLabel(t('reports.table.columnName', { n: 2 })).fill('Revenue');
      for (let i = 0; i < 3; i++) await page.getByRole('button', { name: t('reports.table.addRow') }).click();
      const rows = [
        ['North', '120'],
        ['South', '80'],
        ['East', '95.5'],
      ];
      for (const [r, [region, revenue]] of rows.entries()) {
        await page.getByLabel(t('reports.table.cell', { row: r + 1, column: 'Region' })).fill(region);
        await page.getByLabel(t('reports.table.cell', { row: r + 1, column: 'Revenue' })).fill(revenue);
      }
      await saveDraft.click();

      await expect(page.getByText(t('reports.form.created'))).toBeVisible();
      await expect(page).toHaveURL(/\/department\/[0-9a-f-]{36}\/reports\/[0-9a-f-]{36}$/);
      reportUrl = new URL(page.url()).pathname;
      await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
      await expect(status(page)).toHaveText(t('reportStatus.draft'));
      await expect(page.getByTestId('report-table')).toContainText('East');

      await page.getByRole('button', { name: t('reports.form.submit') }).click();
      await expect(page.getByText(t('reports.detail.submitted'))).toBeVisible();
      await expect(status(page)).toHaveText(t('reportStatus.submitted'));
      await expect(page.getByRole('link', { name: t('common.edit') })).toHaveCount(0);
    });

    test('the CEO finds it, reads the chart and the table, downloads it and rejects it with notes', async ({ page }) => {
      await signIn(page, ceo);
      await nav(page)
        .getByRole('link', { name: t('nav.reports') })
        .click();
      await expect(page).toHaveURL(/\/ceo\/reports$/);
      await page.getByRole('link', { name: title }).click();
      await expect(page).toHaveURL(/\/ceo\/reports\/[0-9a-f-]{36}$/);
      await expect(status(page)).toHaveText(t('reportStatus.submitted'));
      await expect(page.getByTestId('report-chart').locator('svg, canvas').first()).toBeVisible();
      await expect(page.getByTestId('report-table')).toContainText('North');
      await expect(page.getByTestId('report-table')).toContainText('South');

      await page.getByRole('button', { name: t('reports.download.action') }).click();
      const download = page.waitForEvent('download');
      await page.getByRole('menuitem', { name: t('reports.download.xlsx') }).click();
      expect((await download).suggestedFilename()).toMatch(/\.xlsx$/);

      // Rejecting needs notes.
      await page.getByRole('button', { name: exact(t('reports.review.reject')) }).click();
      await expect(page.getByText(t('reports.review.notesRequired'))).toBeVisible();
      await page.getByRole('textbox', { name: t('reports.review.notes') }).fill(notes.reject);
      await page.getByRole('button', { name: exact(t('reports.review.reject')) }).click();
      await expect(page.getByText(t('reports.review.success.rejected'))).toBeVisible();
      await expect(status(page)).toHaveText(t('reportStatus.rejected'));
      await expect(page.getByTestId('review-notes')).toContainText(notes.reject);
    });

    test('the author sees the rejection, changes a cell and submits again', async ({ page }) => {
      await signIn(page, author);
      await nav(page)
        .getByRole('link', { name: t('nav.reports') })
        .click();
      const row = page.getByRole('row', { name: new RegExp(title) });
      await expect(row).toContainText(t('reportStatus.rejected'));
      await row.getByRole('link', { name: title }).click();
      await expect(page).toHaveURL(new RegExp(`${reportUrl}$`));
      await expect(status(page)).toHaveText(t('reportStatus.rejected'));
      await expect(page.getByTestId('review-notes')).toContainText(notes.reject);

      await page.getByRole('link', { name: t('common.edit') }).click();
      await expect(page.getByRole('heading', { level: 1, name: t('reports.form.editTitle') })).toBeVisible();
      await expect(page.getByTestId('review-notes')).toContainText(notes.reject);
      await expect(page.getByTestId('review-notes')).toContainText(t('reports.form.rejectedHint'));
      const south = page.getByLabel(t('reports.table.cell', { row: 2, column: 'Revenue' }));
      await expect(south).toHaveValue('80');
      await south.fill('180');
      await page.getByRole('button', { name: t('reports.form.submit') }).click();

      await expect(page.getByText(t('reports.form.updated'))).toBeVisible();
      await expect(page).toHaveURL(new RegExp(`${reportUrl}$`));
      await expect(status(page)).toHaveText(t('reportStatus.submitted'));
      await expect(page.getByTestId('report-table')).toContainText('180');
    });

    test('the CEO approves it after a confirmation', async ({ page }) => {
      await signIn(page, ceo);
      await page.goto(`/ceo/reports?status=submitted`);
      await page.getByRole('link', { name: title }).click();
      await expect(page.getByTestId('report-table')).toContainText('180');
      await page.getByRole('textbox', { name: t('reports.review.notes') }).fill(notes.approve);
      await page.getByRole('button', { name: exact(t('reports.review.approve')) }).click();
      const dialog = page.getByRole('dialog', { name: t('reports.review.approveTitle') });
      await expect(dialog).toContainText(t('reports.review.approveConfirm'));
      await dialog.getByRole('button', { name: exact(t('reports.review.approve')) }).click();
      await expect(page.getByText(t('reports.review.success.approved'))).toBeVisible();
      await expect(status(page)).toHaveText(t('reportStatus.approved'));
      await expect(page.getByRole('button', { name: exact(t('reports.review.approve')) })).toHaveCount(0);
    });

    test('the author sees it approved, with the review notes and the whole history', async ({ page }) => {
      await signIn(page, author);
      await page.goto(reportUrl);
      await expect(status(page)).toHaveText(t('reportStatus.approved'));
      await expect(page.getByTestId('review-notes')).toContainText(notes.approve);
      await expect(page.getByRole('link', { name: t('common.edit') })).toHaveCount(0);
      const history = page.getByTestId('report-history');
      await expect(history).toContainText(t('reports.detail.transition', { from: t('reportStatus.submitted'), to: t('reportStatus.rejected') }));
      await expect(history).toContainText(notes.reject);
      await expect(history).toContainText(t('reports.detail.transition', { from: t('reportStatus.submitted'), to: t('reportStatus.approved') }));
    });

    test('the dashboards count it, and the admin reads it from the enterprise', async ({ page }) => {
      await signIn(page, author);
      await expect(page.getByTestId('summary-drafts')).toContainText('0');
      await nav(page)
        .getByRole('link', { name: t('nav.department') })
        .click();
      await expect(page.getByRole('heading', { level: 1, name: t('departmentTypes.finance') })).toBeVisible();
      await expect(page.getByTestId('count-approved')).toContainText('1');
      await expect(page.getByTestId('chart').locator('svg').first()).toBeVisible();
      await expect(page.getByRole('link', { name: title })).toBeVisible();

      await page.evaluate(() => window.sessionStorage.clear());
      await signIn(page, ceo);
      await nav(page)
        .getByRole('link', { name: t('nav.myEnterprise') })
        .click();
      await expect(page.getByTestId('ceo-kpi-approved')).toContainText('1');
      await expect(page.getByTestId('ceo-chart').locator('svg').first()).toBeVisible();
      await expect(page.getByRole('link', { name: title }).first()).toHaveAttribute('href', /\/ceo\/reports\/[0-9a-f-]{36}$/);

      await page.evaluate(() => window.sessionStorage.clear());
      await signIn(page, admin);
      await page.goto(`/admin/enterprises/${enterpriseId}`);
      const reports = page.getByRole('region', { name: t('enterprises.detail.reports') });
      await reports.getByRole('link', { name: title }).click();
      await expect(page).toHaveURL(new RegExp(`/ceo/reports/[0-9a-f-]{36}\\?enterpriseId=${enterpriseId}$`));
      await expect(status(page)).toHaveText(t('reportStatus.approved'));
      await expect(page.getByTestId('report-table')).toContainText('180');
      await expect(page.getByRole('button', { name: exact(t('reports.review.reject')) })).toHaveCount(0);
    });
  });
}
