import { type APIRequestContext, expect, test } from '@playwright/test';
import { waitForMail } from './mail';
import { admin, apiToken, bearer, createEnterprise, signIn, signInInFrench } from './support';

/** Unique per run, so the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

/**
 * An enterprise's archive, as its export wrote it, and the enterprise purged afterwards: what an
 * admin moving a tenant between platforms (or bringing one back) holds.
 */
async function archiveOfPurged(request: APIRequestContext, name: string, ceo: { email: string; password: string; fullName: string }): Promise<Buffer> {
  const token = await apiToken(request, admin);
  const id = await createEnterprise(request, token, name, ceo);
  const started = await request.post(`/api/v1/enterprises/${id}/exports`, { headers: bearer(token) });
  expect(started.status(), await started.text()).toBe(202);
  const path = `/api/v1/enterprises/${id}/exports/${((await started.json()) as { id: string }).id}`;
  await expect
    .poll(async () => ((await (await request.get(path, { headers: bearer(token) })).json()) as { status: string }).status, { timeout: 30_000 })
    .toBe('ready');
  const archive = await request.get(`${path}/download`, { headers: bearer(token) });
  expect(archive.status()).toBe(200);
  const bytes = await archive.body();
  expect((await request.delete(`/api/v1/enterprises/${id}`, { headers: bearer(token) })).status()).toBe(202);
  const purged = await request.post(`/api/v1/enterprises/${id}/purge`, { headers: bearer(token), data: { confirmName: name } });
  expect(purged.status(), await purged.text()).toBe(204);
  return bytes;
}

test.describe('importing an enterprise', () => {
  test('the admin uploads an archive, follows the import to what it made, opens the enterprise, and its CEO is invited', async ({ page, request }) => {
    const name = `Imported ${runId}`;
    const ceo = { email: `import-ceo-${runId}@e2e.test`, password: 'import-ceo-password', fullName: `Ivo Import ${runId}` };
    const archive = await archiveOfPurged(request, name, ceo);

    await signIn(page);
    await page.goto('/admin/enterprises');
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import an enterprise' });
    await expect(dialog).toContainText("Nobody's password travels");
    await dialog.locator('input[type="file"]').setInputFiles({ name: 'export.zip', mimeType: 'application/zip', buffer: archive });
    await dialog.getByRole('button', { name: 'Import' }).click();

    const result = dialog.getByTestId('enterprise-import-result');
    await expect(result).toContainText(`${name} was imported`, { timeout: 30_000 });
    await expect(result).toContainText('Its ids were kept, so links to it still work.');
    await expect(result).toContainText('1 person was e-mailed an invitation to choose a password.');
    await expect(result).toContainText('5 departments');
    await expect(result).toContainText('The messenger: it is end-to-end encrypted');
    await result.getByRole('link', { name: 'Open the enterprise' }).click();
    await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
    await expect(page.getByText(ceo.email).first()).toBeVisible();

    const mail = await waitForMail(request, ceo.email, (m) => m.text.includes('/accept-invitation?token='));
    expect(mail.text).toContain(name);
  });

  test('in French, a file that is not an archive is refused at its field, and an archive whose name is taken is refused with why', async ({
    page,
    request,
  }) => {
    const name = `Importée ${runId}`;
    const ceo = { email: `import-fr-${runId}@e2e.test`, password: 'import-fr-password', fullName: `Inès Import ${runId}` };
    const archive = await archiveOfPurged(request, name, ceo);
    // Another enterprise took its name meanwhile.
    await createEnterprise(request, await apiToken(request, admin), name, { ...ceo, email: `import-fr-other-${runId}@e2e.test` });

    await signInInFrench(page);
    await page.goto('/admin/enterprises');
    await page.getByRole('button', { name: 'Importer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Importer une entreprise' });
    await dialog.getByRole('button', { name: 'Importer' }).click();
    await expect(dialog).toContainText("Choisissez l'archive à importer.");

    const input = dialog.locator('input[type="file"]');
    await input.setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from('pas une archive') });
    await dialog.getByRole('button', { name: 'Importer' }).click();
    await expect(dialog).toContainText('Ce fichier ne peut pas être importé.');
    await expect(dialog.getByRole('alert')).toContainText("Ce fichier n'est pas une archive que cette plateforme sait lire");

    await input.setInputFiles({ name: 'export.zip', mimeType: 'application/zip', buffer: archive });
    await dialog.getByRole('button', { name: 'Importer' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Une entreprise porte déjà ce nom.');
    await dialog.getByRole('button', { name: 'Annuler' }).click();
    await expect(dialog).toBeHidden();
  });
});
