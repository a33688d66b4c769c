import { expect, test } from '@playwright/test';
import { settle, textLines, visit } from './screens';
import { apiToken, bearer, createEnterprise, createStaff, departmentId, sidebar, signIn, signInInFrench } from './support';

test('the sidebar is open from 1024 px and collapses below', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();

  await page.setViewportSize({ width: 800, height: 800 });
  await expect(sidebar(page)).toBeHidden();

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();
});

test('below 1024 px the burger opens and closes the sidebar', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 800 });
  await signIn(page);
  await expect(sidebar(page)).toBeHidden();

  const burger = page.getByRole('button', { name: 'Toggle navigation' });
  await burger.click();
  await expect(sidebar(page)).toBeVisible();
  await expect(burger).toHaveAttribute('aria-expanded', 'true');

  // Following a link closes it again.
  await sidebar(page).getByRole('link', { name: 'Dashboard' }).click();
  await expect(sidebar(page)).toBeHidden();
});

test('the sidebar is open at exactly 1024 px', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await signIn(page);
  await expect(sidebar(page)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Toggle navigation' })).toBeHidden();
});

test('resized to exactly 1024 px, the sidebar is forced open; at 1023 px it collapses and the burger toggles it', async ({ page }) => {
  const burger = page.getByRole('button', { name: 'Toggle navigation' });
  await page.setViewportSize({ width: 800, height: 768 });
  await signIn(page);
  await expect(sidebar(page)).toBeHidden();

  // Growing to exactly 1024 px opens it, with no burger to close it.
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();
  await expect(burger).toBeHidden();

  // One pixel less, it is a drawer again: closed, and the burger opens and closes it.
  await page.setViewportSize({ width: 1023, height: 768 });
  await expect(sidebar(page)).toBeHidden();
  await expect(burger).toBeVisible();
  await burger.click();
  await expect(sidebar(page)).toBeVisible();
  await expect(sidebar(page).getByRole('link', { name: 'Dashboard' })).toBeInViewport();
  await expect(burger).toHaveAttribute('aria-expanded', 'true');
  await burger.click();
  await expect(sidebar(page)).toBeHidden();
  await expect(burger).toHaveAttribute('aria-expanded', 'false');

  // Opened as a drawer, then widened to 1024 px: open, and it stays open.
  await burger.click();
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(sidebar(page)).toBeVisible();
  await expect(burger).toBeHidden();
});

test('one sidebar entry is the current page, the most specific one (not its parent too)', async ({ page, request }) => {
  const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  const current = sidebar(page).locator('a[aria-current="page"]');
  const expectCurrent = async (path: string, name: string) => {
    await visit(page, path);
    await expect(current).toHaveCount(1);
    await expect(current).toHaveAccessibleName(name);
  };
  await page.setViewportSize({ width: 1280, height: 800 });

  await signIn(page);
  await expectCurrent('/admin', 'Administration');
  await expectCurrent('/admin/enterprises', 'Enterprises');
  await expectCurrent('/admin/users', 'Users');
  await expectCurrent('/admin/monitoring', 'Monitoring');
  await expectCurrent('/admin/integrations', 'Integrations');
  await expectCurrent('/admin/audit', 'Audit log');

  // A CEO, and a member of their Finance department with a report.
  const ceo = { fullName: `Layout Ceo ${runId}`, email: `layout-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
  const member = { fullName: `Layout Member ${runId}`, email: `layout-member-${runId}@e2e.test`, password: 'member-password-1' };
  const enterpriseId = await createEnterprise(
    request,
    await apiToken(request, { email: process.env.E2E_ADMIN_EMAIL ?? 'admin@e2e.test', password: process.env.E2E_ADMIN_PASSWORD ?? 'e2e-admin-password' }),
    `Layout ${runId}`,
    ceo,
  );
  const ceoHeaders = bearer(await apiToken(request, ceo));
  const departments = (await (await request.get(`/api/v1/enterprises/${enterpriseId}/departments`, { headers: ceoHeaders })).json()) as {
    id: string;
    type: string;
  }[];
  const finance = departments.find((department) => department.type === 'finance')!.id;
  const made = await request.post('/api/v1/users', {
    headers: ceoHeaders,
    data: { fullName: member.fullName, email: member.email, password: member.password, role: 'DepartmentUser', departmentId: finance },
  });
  expect(made.status(), await made.text()).toBe(201);
  const report = await request.post(`/api/v1/departments/${finance}/reports`, {
    headers: bearer(await apiToken(request, member)),
    data: { title: `Layout report ${runId}`, content: 'Figures.', periodStart: '2026-01-01', periodEnd: '2026-03-31', status: 'submitted' },
  });
  expect(report.status(), await report.text()).toBe(201);
  const reportId = ((await report.json()) as { id: string }).id;

  await page.context().clearCookies();
  await page.evaluate(() => {
    window.localStorage.clear();
    window.sessionStorage.clear();
  });
  await signIn(page, ceo);
  await expectCurrent('/ceo', 'My enterprise');
  await expectCurrent('/ceo/reports', 'Reports');
  await expectCurrent(`/ceo/reports/${reportId}`, 'Reports');
  await expectCurrent('/audit', 'Audit log');

  await page.evaluate(() => {
    window.localStorage.clear();
    window.sessionStorage.clear();
  });
  await signIn(page, member);
  await expectCurrent(`/department/${finance}`, 'My department');
  await expectCurrent(`/department/${finance}/reports`, 'Reports');
  await expectCurrent(`/department/${finance}/reports/${reportId}`, 'Reports');
});

// A short report title beside wide actions (the CEO's review buttons and the download menu, the
// author's edit, submit and delete): on one line, its status badge beside it, not below
// (issue 45, point 15: the header's title column was 320 px beside the actions, too narrow).
for (const locale of ['en', 'fr'] as const) {
  test(`a short report title stays on one line with its status badge beside it (${locale})`, async ({ page, request }) => {
    const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
    const ceo = { fullName: `Header Ceo ${runId}`, email: `header-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
    const member = { fullName: `Header Member ${runId}`, email: `header-member-${runId}@e2e.test`, password: 'member-password-1' };
    const enterpriseId = await createEnterprise(
      request,
      await apiToken(request, { email: process.env.E2E_ADMIN_EMAIL ?? 'admin@e2e.test', password: process.env.E2E_ADMIN_PASSWORD ?? 'e2e-admin-password' }),
      `Header ${runId}`,
      ceo,
    );
    const ceoToken = await apiToken(request, ceo);
    const finance = await departmentId(request, ceoToken, enterpriseId, 'finance');
    await createStaff(request, ceoToken, member, finance);
    const memberHeaders = bearer(await apiToken(request, member));
    const title = locale === 'fr' ? 'Budget trimestriel Q4' : 'Q4 budget variance';
    const report = async (status: 'submitted' | 'draft') => {
      const made = await request.post(`/api/v1/departments/${finance}/reports`, {
        headers: memberHeaders,
        data: { title, content: 'Figures.', periodStart: '2026-10-01', periodEnd: '2026-12-31', status },
      });
      expect(made.status(), await made.text()).toBe(201);
      return ((await made.json()) as { id: string }).id;
    };
    const submitted = await report('submitted');
    const draft = await report('draft');

    const expectOneLine = async (path: string, width: number) => {
      await page.setViewportSize({ width, height: 900 });
      await visit(page, path);
      const heading = page.getByRole('heading', { level: 1, name: title });
      await expect(heading).toBeVisible();
      await settle(page);
      expect(await textLines(heading), `${path} at ${width} px`).toEqual([title]);
      const badge = page.getByTestId('report-status').first();
      const [h, b] = [(await heading.boundingBox())!, (await badge.boundingBox())!];
      // Beside the title, within its line's height.
      expect(b.x, `the badge is right of the title at ${width} px`).toBeGreaterThanOrEqual(h.x + h.width - 1);
      expect(b.y, `the badge is on the title's line at ${width} px`).toBeGreaterThanOrEqual(h.y - 1);
      expect(b.y + b.height, `the badge is on the title's line at ${width} px`).toBeLessThanOrEqual(h.y + h.height + 1);
    };

    const signInAs = locale === 'fr' ? signInInFrench : signIn;
    await signInAs(page, ceo);
    for (const width of [1280, 800]) await expectOneLine(`/ceo/reports/${submitted}`, width);
    await page.evaluate(() => {
      window.localStorage.clear();
      window.sessionStorage.clear();
    });
    await signInAs(page, member);
    for (const width of [1280, 800]) await expectOneLine(`/department/${finance}/reports/${draft}`, width);
  });
}
