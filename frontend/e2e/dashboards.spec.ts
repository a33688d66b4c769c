import { expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, createStaff, departmentId, signIn } from './support';

// A new enterprise's CEO home says that no report came in yet instead of drawing an empty chart,
// and a chart writes its numbers as the rest of the screen does, in the interface language.
for (const locale of ['en', 'fr'] as const) {
  test(`a new enterprise's dashboard has an empty state, and a chart's numbers follow the language (${locale})`, async ({ page, request }) => {
    const runId = `${locale}-${Date.now()}`;
    const ceo = { email: `dash-ceo-${runId}@e2e.test`, password: 'ceo-password-1', fullName: `Dana Dash ${runId}` };
    const author = { email: `dash-author-${runId}@e2e.test`, password: 'author-password-1', fullName: `Ari Author ${runId}` };
    const enterprise = await createEnterprise(request, await apiToken(request, admin), `Dash ${runId}`, ceo);
    const ceoToken = await apiToken(request, ceo);
    const finance = await departmentId(request, ceoToken, enterprise, 'finance');
    await createStaff(request, ceoToken, author, finance);
    const T = {
      en: { empty: /^No report has been submitted yet/, thousands: /^\d{1,3},\d{3}$/, other: /^\d{1,3}\u202f\d{3}$/ },
      fr: { empty: /^Aucun rapport n'a encore été soumis/, thousands: /^\d{1,3}\u202f\d{3}$/, other: /^\d{1,3},\d{3}$/ },
    }[locale];

    await signIn(page, ceo);
    await page.evaluate((value) => window.localStorage.setItem('locale', value), locale);
    await page.goto('/ceo');
    await expect(page.getByTestId('ceo-chart-empty')).toHaveText(T.empty);
    await expect(page.getByTestId('ceo-chart')).toHaveCount(0);

    const authorToken = await apiToken(request, author);
    const created = await request.post(`/api/v1/departments/${finance}/reports`, {
      headers: bearer(authorToken),
      data: {
        title: `Revenue ${runId}`,
        content: 'Figures',
        periodStart: '2026-01-01',
        periodEnd: '2026-03-31',
        status: 'submitted',
        data: {
          columns: ['Region', 'Revenue'],
          rows: [
            ['North', 1500],
            ['South', 2750],
          ],
        },
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const report = (await created.json()) as { id: string };

    await page.goto('/ceo');
    await expect(page.getByTestId('ceo-chart').locator('svg').first()).toBeVisible();
    await expect(page.getByTestId('ceo-chart-empty')).toHaveCount(0);

    await page.goto(`/ceo/reports/${report.id}`);
    const chart = page.getByTestId('report-chart');
    await expect(chart.locator('svg').first()).toBeVisible();
    const ticks = async () => (await chart.locator('svg text').allTextContents()).map((text) => text.trim());
    await expect
      .poll(async () => (await ticks()).filter((text) => T.thousands.test(text)).length, { message: 'thousands written in the language' })
      .toBeGreaterThan(0);
    expect((await ticks()).filter((text) => T.other.test(text))).toEqual([]);
  });
}
