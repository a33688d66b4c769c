import { readFileSync } from 'node:fs';
import { type Page, expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, createStaff, departmentId, sidebar, signIn, signInInFrench } from './support';

/**
 * The audit log in the real app against the real server: a CEO approves and exports a report,
 * then reads what happened to it, as sentences, from the report's "Audit log" link; the filters
 * live in the URL and survive a reload; the selection exports as CSV; the log reads in French;
 * the platform admin narrows theirs to one enterprise.
 */

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const ceo = { fullName: `Nora Chef ${runId}`, email: `audit-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
const staff = { fullName: `Sam Lee ${runId}`, email: `audit-staff-${runId}@e2e.test`, password: 'staff-password-1' };
const title = `Audited report ${runId}`;
const enterpriseName = `Audit ${runId}`;
let reportId = '';

test.beforeAll(async ({ request }) => {
  const enterpriseId = await createEnterprise(request, await apiToken(request, admin), enterpriseName, ceo);
  const ceoToken = await apiToken(request, ceo);
  await createStaff(request, ceoToken, staff, await departmentId(request, ceoToken, enterpriseId, 'finance'));
  const financeId = await departmentId(request, ceoToken, enterpriseId, 'finance');
  const made = await request.post(`/api/v1/departments/${financeId}/reports`, {
    headers: bearer(await apiToken(request, staff)),
    data: { title, content: 'Figures.', periodStart: '2026-01-01', periodEnd: '2026-03-31', status: 'submitted' },
  });
  expect(made.status(), await made.text()).toBe(201);
  reportId = ((await made.json()) as { id: string }).id;
});

const sentences = (page: Page) => page.getByTestId('audit-sentence');

test('a CEO approves and exports a report, then reads it all in the audit log, from the report itself', async ({ page }) => {
  await signIn(page, ceo);
  await page.goto(`/ceo/reports/${reportId}`);
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('dialog', { name: 'Approve report' }).getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('report-status')).toHaveText('Approved');
  await page.getByRole('button', { name: 'Download' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'PDF' }).click();
  await download;

  await page.getByRole('main').getByRole('link', { name: 'Audit log' }).click();
  await expect(page).toHaveURL(new RegExp(`/audit\\?target=${reportId}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
  await expect(sentences(page)).toHaveText([
    `${ceo.fullName} exported the report “${title}” as PDF`,
    `${ceo.fullName} approved the report “${title}”`,
    `${staff.fullName} submitted the report “${title}” for review`,
    `${staff.fullName} created the report “${title}”`,
  ]);
  await expect(page.getByLabel('Target ID')).toHaveValue(reportId);

  // The details: what changed, from where, in which browser.
  const approved = page.getByTestId('audit-entry').filter({ hasText: 'approved the report' });
  await approved.getByRole('button', { name: 'Details' }).click();
  await expect(approved.getByTestId('audit-changes')).toContainText('Status');
  await expect(approved.getByTestId('audit-changes')).toContainText('Submitted → Approved');
  await expect(approved.getByTestId('audit-details')).toContainText('127.0.0.1');
  await expect(approved.getByTestId('audit-details')).toContainText('Chrome');
});

test('the filters live in the URL: a reload keeps them, and the selection exports as CSV', async ({ page }) => {
  await signIn(page, ceo);
  await sidebar(page).getByRole('link', { name: 'Audit log' }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(sentences(page).first()).toBeVisible();

  await page.getByRole('combobox', { name: 'Action' }).click();
  await page.getByRole('option', { name: 'Report approved' }).click();
  await page.getByLabel('Search').fill(runId);
  await expect(page).toHaveURL(/\/audit\?action=report\.approved&q=/);
  await expect(sentences(page)).toHaveText([`${ceo.fullName} approved the report “${title}”`]);

  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Action' })).toHaveValue('Report approved');
  await expect(page.getByLabel('Search')).toHaveValue(runId);
  await expect(sentences(page)).toHaveText([`${ceo.fullName} approved the report “${title}”`]);

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^audit-\d{8}-\d{6}\.csv$/);
  const lines = readFileSync((await file.path())!, 'utf8')
    .trim()
    .split('\n');
  expect(lines[0]).toBe('id,at,enterpriseId,actorType,actorId,actorName,action,targetType,targetId,targetName,ip,place,userAgent,changes');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain('report.approved');
  expect(lines[1]).toContain(title);

  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByRole('combobox', { name: 'Action' })).toHaveValue('');
});

test('the audit log in French', async ({ page }) => {
  await signInInFrench(page, ceo);
  await page.goto(`/audit?target=${reportId}&action=report`);
  await expect(page.getByRole('heading', { level: 1, name: "Journal d'audit" })).toBeVisible();
  await expect(sentences(page)).toHaveText([
    `${ceo.fullName} a exporté le rapport «\u00a0${title}\u00a0» en PDF`,
    `${ceo.fullName} a approuvé le rapport «\u00a0${title}\u00a0»`,
    `${staff.fullName} a soumis le rapport «\u00a0${title}\u00a0» pour examen`,
    `${staff.fullName} a créé le rapport «\u00a0${title}\u00a0»`,
  ]);
  await expect(page.getByRole('combobox', { name: 'Action' })).toHaveValue('Toutes les actions sur les rapports');
});

test("the platform admin's audit log: every enterprise's, narrowed to one", async ({ page }) => {
  await signIn(page, admin);
  await sidebar(page).getByRole('link', { name: 'Audit log' }).click();
  await expect(page).toHaveURL(/\/admin\/audit$/);
  await page.getByRole('combobox', { name: 'Enterprise' }).fill(enterpriseName);
  await page.getByRole('option', { name: enterpriseName }).click();
  await expect(page).toHaveURL(/\/admin\/audit\?enterpriseId=[0-9a-f-]{36}$/);
  // Everything of that enterprise, newest first (its people's sign-ins among it, as many as the
  // tests before made): the report's story, the accounts, and the enterprise's creation last.
  await expect(sentences(page)).toContainText([
    `${ceo.fullName} exported the report “${title}” as PDF`,
    `${ceo.fullName} approved the report “${title}”`,
    `${staff.fullName} submitted the report “${title}” for review`,
    `${staff.fullName} created the report “${title}”`,
    `${ceo.fullName} created an account for ${staff.fullName}`,
    `E2E Admin created an account for ${ceo.fullName}`,
    `E2E Admin created the enterprise ${enterpriseName}`,
  ]);
  await expect(sentences(page).last()).toHaveText(`E2E Admin created the enterprise ${enterpriseName}`);
  await expect(page.getByTestId('audit-entry').first().getByRole('link', { name: enterpriseName })).toBeVisible();
});
