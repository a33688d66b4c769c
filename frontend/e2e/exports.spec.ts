import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { waitForMail } from './mail';
import { admin, apiToken, createEnterprise, signIn, signInInFrench } from './support';

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

test.describe('an enterprise export', () => {
  test('the CEO exports their enterprise, follows it to ready, downloads the archive and is e-mailed', async ({ page, request }) => {
    const name = `Exporting ${runId}`;
    const ceo = { email: `export-ceo-${runId}@e2e.test`, password: 'export-ceo-password', fullName: `Eve Export ${runId}` };
    await createEnterprise(request, await apiToken(request, admin), name, ceo);
    await signIn(page, ceo);
    await page.goto('/ceo');
    const card = page.getByRole('region', { name: 'Export all data' });
    await expect(card).toContainText(`One archive of everything ${name} holds`);
    await expect(card).toContainText('Messages are end-to-end encrypted');
    await expect(card).toContainText('No export yet.');

    await card.getByRole('button', { name: 'Export all data' }).click();
    const item = card.getByTestId('enterprise-export');
    await expect(item).toHaveCount(1);
    // Followed while it is written, then ready with its size and the date it lasts until.
    await expect(item.getByText('Ready', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(item).toContainText(/\d+(\.\d)?\s(kB|MB) · can be downloaded until /);
    await expect(card.getByRole('button', { name: 'Export all data' })).toBeEnabled();

    const download = page.waitForEvent('download');
    await item.getByRole('button', { name: 'Download' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^exporting-[0-9a-z-]+-export-\d{4}-\d{2}-\d{2}\.zip$/);
    const bytes = readFileSync(await file.path());
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    expect(bytes.includes(Buffer.from('manifest.json'))).toBe(true);

    const mail = await waitForMail(request, ceo.email, (m) => m.subject === `The export of ${name} is ready on Enterprise Platform`);
    expect(mail.text).toContain('/ceo');
  });

  test('in French, the admin exports an enterprise from its page and downloads it', async ({ page, request }) => {
    const name = `Exportée ${runId}`;
    const ceo = { email: `export-fr-${runId}@e2e.test`, password: 'export-fr-password', fullName: `Élise Export ${runId}` };
    const id = await createEnterprise(request, await apiToken(request, admin), name, ceo);
    await signInInFrench(page);
    await page.goto(`/admin/enterprises/${id}`);
    const card = page.getByRole('region', { name: 'Exporter toutes les données' });
    await expect(card).toContainText(`Une archive de tout ce que ${name} contient`);
    await expect(card).toContainText("Aucun export pour l'instant.");
    await card.getByRole('button', { name: 'Exporter toutes les données' }).click();
    const item = card.getByTestId('enterprise-export');
    await expect(item.getByText('Prêt', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(item).toContainText(/\d+(,\d)?\s(ko|Mo) · téléchargeable jusqu'au /);
    const download = page.waitForEvent('download');
    await item.getByRole('button', { name: 'Télécharger' }).click();
    expect((await download).suggestedFilename()).toMatch(/\.zip$/);
  });
});
