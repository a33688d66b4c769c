import { type APIRequestContext, type Locator, type Page, expect, test } from '@playwright/test';
import { expectBarChart } from './charts';
import { overflowing, settle, textBox, textLines } from './screens';
import { admin } from './support';
import { readXlsx } from './xlsx';

/**
 * The texts users read, written out in both languages (not read from the app's own message
 * files: a wrong or missing translation must fail here).
 */
const TEXTS = {
  en: {
    email: 'Email',
    password: 'Password',
    signIn: 'Sign in',
    navigation: 'Main navigation',
    navReports: 'Reports',
    navDepartment: 'My department',
    navMyEnterprise: 'My enterprise',
    noReports: 'No reports yet',
    newReport: 'New report',
    createTitle: 'New report',
    editTitle: 'Edit report',
    saveDraft: 'Save as Draft',
    submit: 'Submit Report',
    edit: 'Edit',
    delete: 'Delete',
    cancel: 'Cancel',
    required: 'This field is required',
    fieldTitle: 'Title',
    fieldContent: 'Content',
    fieldPeriodStart: 'Period start',
    fieldPeriodEnd: 'Period end',
    /** A day as typed in a date field, in the interface language. */
    day: (iso: string) => iso.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$2/$3/$1'),
    periodOrder: 'The period end must be on or after the period start',
    addColumn: 'Add column',
    notANumber: 'Enter a number, such as 1,250.50: this column holds numbers',
    // Numbers as this language writes them: grouped, and East's 95.5.
    grouped: '1,250.50',
    east: '95.5',
    addRow: 'Add row',
    columnName: (n: number) => `Column ${n} name`,
    cell: (row: number, column: string) => `Row ${row}, ${column}`,
    created: 'Report created successfully',
    updated: 'Report updated successfully',
    submitted: 'Report submitted for review',
    createFailed: 'Failed to create report',
    updateFailed: 'Failed to update report',
    deleteTitle: 'Delete report',
    deleteConfirm: 'Are you sure you want to delete this report?',
    deleteNamed: (name: string) => `“${name}” and its history will be permanently deleted.`,
    deleteIrreversible: 'This action cannot be undone.',
    deleted: 'Report deleted successfully',
    deleteFailed: 'Failed to delete report',
    notFound: 'Resource not found',
    statusRefused: "The report's status no longer allows this: reload the page to see where it stands.",
    status: { draft: 'Draft', submitted: 'Submitted', reviewed: 'Reviewed', approved: 'Approved', rejected: 'Rejected' },
    counts: { draft: 'Draft', submitted: 'Submitted', reviewed: 'Reviewed', approved: 'Approved', rejected: 'Rejected' },
    transition: (from: string, to: string) => `${from} → ${to}`,
    createdAs: { draft: 'Created as draft', submitted: 'Created as submitted' },
    download: 'Download',
    xlsx: 'Excel (XLSX)',
    workbook: {
      sheets: ['Report', 'Data'],
      fields: (title: string, author: string) => [
        ['Title', title],
        ['Department', 'Finance'],
        ['Period', '2026-01-01 to 2026-03-31'],
        ['Status', 'Submitted'],
        ['Author', author],
      ],
      content: 'Content',
    },
    reject: 'Reject',
    approve: 'Approve',
    reviewNotes: 'Review notes',
    notesRequired: 'Please explain why the report is rejected',
    rejected: 'Report rejected',
    approved: 'Report approved',
    approveTitle: 'Approve report',
    approveConfirm: 'Approval is final: the report can no longer be changed. Approve it?',
    rejectedHint: 'Saving your changes returns it to draft; submit it again when it is ready.',
    drafts: 'Draft reports',
    enterpriseReports: 'Reports',
    departments: ['Finance', 'Operations', 'Sales and marketing', 'Human resources', 'Information technology'],
    figures: ['120', '80', '95.5'],
    reportColumns: ['Title', 'Department', 'Status', 'Period', 'Author', 'Last updated'],
    tableTitles: ['Revenue and operating costs by region', 'Budget', 'Staff turnover, first half'],
    /** The period April to June 2026 on one line, or wrapped after the dash (never inside a day). */
    periodLines: [['Apr 1, 2026 – Jun 30, 2026'], ['Apr 1, 2026 –', 'Jun 30, 2026']],
    /** A moment on one line, or its day then its time ("Nov 27, 2026," / "3:42 PM"). */
    momentLines: [/^[A-Z][a-z]{2} \d{1,2}, \d{4},$/, /^\d{1,2}:\d{2} [AP]M$/],
  },
  fr: {
    email: 'E-mail',
    password: 'Mot de passe',
    signIn: 'Se connecter',
    navigation: 'Navigation principale',
    navReports: 'Rapports',
    navDepartment: 'Mon département',
    navMyEnterprise: 'Mon entreprise',
    noReports: "Aucun rapport pour l'instant",
    newReport: 'Nouveau rapport',
    createTitle: 'Nouveau rapport',
    editTitle: 'Modifier le rapport',
    saveDraft: 'Enregistrer comme brouillon',
    submit: 'Soumettre le rapport',
    edit: 'Modifier',
    delete: 'Supprimer',
    cancel: 'Annuler',
    required: 'Ce champ est obligatoire',
    fieldTitle: 'Titre',
    fieldContent: 'Contenu',
    fieldPeriodStart: 'Début de période',
    fieldPeriodEnd: 'Fin de période',
    day: (iso: string) => iso.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$3/$2/$1'),
    periodOrder: 'La fin de période doit être identique ou postérieure au début',
    addColumn: 'Ajouter une colonne',
    notANumber: 'Saisissez un nombre, comme 1 250,50 : cette colonne contient des nombres',
    grouped: '1 250,50',
    east: '95,5',
    addRow: 'Ajouter une ligne',
    columnName: (n: number) => `Nom de la colonne ${n}`,
    cell: (row: number, column: string) => `Ligne ${row}, ${column}`,
    created: 'Rapport créé avec succès',
    updated: 'Rapport mis à jour avec succès',
    submitted: 'Rapport soumis pour examen',
    createFailed: 'Échec de la création du rapport',
    updateFailed: 'Échec de la mise à jour du rapport',
    deleteTitle: 'Supprimer le rapport',
    deleteConfirm: 'Êtes-vous sûr de vouloir supprimer ce rapport ?',
    deleteNamed: (name: string) => `« ${name} » et son historique seront définitivement supprimés.`,
    deleteIrreversible: 'Cette action est irréversible.',
    deleted: 'Rapport supprimé avec succès',
    deleteFailed: 'Échec de la suppression du rapport',
    notFound: 'Ressource introuvable',
    statusRefused: 'Le statut du rapport ne le permet plus : rechargez la page pour voir où il en est.',
    status: { draft: 'Brouillon', submitted: 'Soumis', reviewed: 'Examiné', approved: 'Approuvé', rejected: 'Rejeté' },
    // Counts of reports: the words agree in French.
    counts: { draft: 'Brouillons', submitted: 'Soumis', reviewed: 'Examinés', approved: 'Approuvés', rejected: 'Rejetés' },
    transition: (from: string, to: string) => `${from} → ${to}`,
    createdAs: { draft: 'Créé en tant que brouillon', submitted: 'Créé en tant que soumis' },
    download: 'Télécharger',
    xlsx: 'Excel (XLSX)',
    workbook: {
      sheets: ['Rapport', 'Données'],
      fields: (title: string, author: string) => [
        ['Titre', title],
        ['Département', 'Finance'],
        ['Période', '01/01/2026 au 31/03/2026'],
        ['Statut', 'Soumis'],
        ['Auteur', author],
      ],
      content: 'Contenu',
    },
    reject: 'Rejeter',
    approve: 'Approuver',
    reviewNotes: "Notes d'examen",
    notesRequired: 'Veuillez expliquer pourquoi le rapport est rejeté',
    rejected: 'Rapport rejeté',
    approved: 'Rapport approuvé',
    approveTitle: 'Approuver le rapport',
    approveConfirm: "L'approbation est définitive : le rapport ne pourra plus être modifié. L'approuver ?",
    rejectedHint: 'Enregistrer vos modifications le repasse en brouillon ; soumettez-le à nouveau une fois prêt.',
    drafts: 'Rapports en brouillon',
    enterpriseReports: 'Rapports',
    departments: ['Finance', 'Opérations', 'Ventes et marketing', 'Ressources humaines', 'Informatique'],
    figures: ['120', '80', '95,5'],
    reportColumns: ['Titre', 'Département', 'Statut', 'Période', 'Auteur', 'Dernière modification'],
    tableTitles: ['Chiffre d’affaires et charges d’exploitation par région', 'Budget', 'Rotation du personnel, premier semestre'],
    periodLines: [['1 avr. 2026 – 30 juin 2026'], ['1 avr. 2026 –', '30 juin 2026']],
    momentLines: [/^\d{1,2} [a-zéû]+\.? \d{4},$/, /^\d{2}:\d{2}$/],
  },
};

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A button or heading named exactly `text`. */
const exact = (text: string) => new RegExp(`^${escape(text)}$`);
/** A field labelled `text` (a required field's label ends with an asterisk). */
const field = (text: string) => new RegExp(`^${escape(text)}`);

type Credentials = { email: string; password: string };

async function apiHeaders(request: APIRequestContext, credentials: Credentials): Promise<{ Authorization: string }> {
  const response = await request.post('/api/v1/auth/login', { data: credentials });
  expect(response.status()).toBe(200);
  return { Authorization: `Bearer ${((await response.json()) as { token: string }).token}` };
}

/** A figure of a dashboard (a dt and a dd): its label and its value, both exactly. */
async function expectFigure(card: Locator, label: string, value: string) {
  await expect(card.locator('dt')).toHaveText(label);
  await expect(card.locator('dd')).toHaveText(value);
}

/** A notification: its title, and its message when given. */
async function expectToast(page: Page, title: string, message?: string) {
  const toast = page.getByRole('alert').filter({ hasText: title });
  await expect(toast).toBeVisible();
  if (message !== undefined) await expect(toast).toContainText(message);
}

const TABLE = {
  columns: ['Region', 'Revenue'],
  rows: [
    ['North', 120],
    ['South', 80],
    ['East', 95.5],
  ],
};

/** South's revenue as the report's table shows it (its row, its second column). */
const southRevenue = (page: Page) => page.getByTestId('report-table').getByRole('row').filter({ hasText: 'South' }).getByRole('cell').nth(1);

for (const locale of ['en', 'fr'] as const) {
  test.describe.serial(`reports (${locale})`, () => {
    const T = TEXTS[locale];
    const runId = `${locale}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
    const ceo = { email: `rceo-${runId}@e2e.test`, password: 'ceo-password-1' };
    const author = { name: `Ada Author ${runId}`, email: `author-${runId}@e2e.test`, password: 'author-password-1' };
    const title = `Quarterly figures ${runId}`;
    const notes = { reject: `Revenue for South looks wrong ${runId}`, approve: `Thanks, approved ${runId}` };
    let reportUrl = '';
    const ids = { enterprise: '', finance: '', author: '' };

    async function signIn(page: Page, credentials: Credentials) {
      await page.addInitScript((value) => window.localStorage.setItem('locale', value), locale);
      await page.goto('/login');
      await page.getByLabel(field(T.email)).fill(credentials.email);
      await page.getByLabel(field(T.password)).fill(credentials.password);
      await page.getByRole('button', { name: T.signIn }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
    }
    const nav = (page: Page) => page.getByRole('navigation', { name: T.navigation });
    const status = (page: Page) => page.getByTestId('report-status');

    /** A report of the author's, written through the API. */
    async function createReport(request: APIRequestContext, reportTitle: string, reportStatus: 'draft' | 'submitted' = 'draft'): Promise<string> {
      const response = await request.post(`/api/v1/departments/${ids.finance}/reports`, {
        headers: await apiHeaders(request, author),
        data: {
          title: reportTitle,
          content: 'Written through the API.',
          periodStart: '2026-04-01',
          periodEnd: '2026-06-30',
          status: reportStatus,
          data: TABLE,
        },
      });
      expect(response.status()).toBe(201);
      return ((await response.json()) as { id: string }).id;
    }

    test.beforeAll(async ({ request }) => {
      const adminHeaders = await apiHeaders(request, admin);
      const created = await request.post('/api/v1/enterprises', {
        headers: adminHeaders,
        data: { name: `Reports ${runId}`, ceoFullName: `Cole Ceo ${runId}`, ceoEmail: ceo.email, ceoPassword: ceo.password },
      });
      expect(created.status()).toBe(201);
      ids.enterprise = ((await created.json()) as { id: string }).id;

      const ceoHeaders = await apiHeaders(request, ceo);
      const departments = (await (await request.get(`/api/v1/enterprises/${ids.enterprise}/departments`, { headers: ceoHeaders })).json()) as {
        id: string;
        type: string;
      }[];
      ids.finance = departments.find((d) => d.type === 'finance')!.id;
      const user = await request.post('/api/v1/users', {
        headers: ceoHeaders,
        data: { fullName: author.name, email: author.email, password: author.password, role: 'DepartmentUser', departmentId: ids.finance },
      });
      expect(user.status()).toBe(201);
      ids.author = ((await user.json()) as { id: string }).id;
    });

    test('the author writes a report with a table, saves it as a draft, then submits it', async ({ page }) => {
      await signIn(page, author);
      await nav(page).getByRole('link', { name: T.navReports }).click();
      await expect(page).toHaveURL(/\/department\/[0-9a-f-]{36}\/reports$/);
      await expect(page.getByText(T.noReports)).toBeVisible();
      await page.getByRole('link', { name: T.newReport }).first().click();
      await expect(page.getByRole('heading', { level: 1, name: T.createTitle })).toBeVisible();

      const saveDraft = page.getByRole('button', { name: T.saveDraft });
      await saveDraft.click();
      await expect(page.getByText(T.required)).toHaveCount(4);

      await page.getByLabel(field(T.fieldTitle)).fill(title);
      await page.getByLabel(field(T.fieldContent)).fill('Sales went up in the North.');
      // Days are typed as written in the interface language (dd/mm/yyyy in French).
      await page.getByLabel(field(T.fieldPeriodStart)).fill(T.day('2026-03-31'));
      await page.getByLabel(field(T.fieldPeriodEnd)).fill(T.day('2026-01-01'));
      await saveDraft.click();
      await expect(page.getByText(T.periodOrder)).toBeVisible();
      await page.getByLabel(field(T.fieldPeriodStart)).fill(T.day('2026-01-01'));
      await page.getByLabel(field(T.fieldPeriodEnd)).fill(T.day('2026-03-31'));
      await expect(page.getByLabel(field(T.fieldPeriodEnd))).toHaveValue(T.day('2026-03-31'));

      // The table: 2 columns, 3 rows.
      await page.getByRole('button', { name: T.addColumn }).click();
      await page.getByRole('button', { name: T.addColumn }).click();
      await page.getByLabel(T.columnName(1)).fill('Region');
      await page.getByLabel(T.columnName(2)).fill('Revenue');
      for (let i = 0; i < 3; i++) await page.getByRole('button', { name: T.addRow }).click();
      for (const [r, [region, revenue]] of TABLE.rows.entries()) {
        await page.getByLabel(T.cell(r + 1, 'Region')).fill(String(region));
        await page.getByLabel(T.cell(r + 1, 'Revenue')).fill(String(revenue));
      }
      // Text in the number column is refused at its cell, before anything is sent; so is an
      // exponent (a slip in a column of amounts). A number grouped as this language writes it is
      // a number, and East's 95.5 is typed as this language writes it.
      const last = page.getByLabel(T.cell(TABLE.rows.length, 'Revenue'));
      await last.fill('abc');
      await saveDraft.click();
      await expect(last).toHaveAttribute('aria-invalid', 'true');
      await expect(page.getByText(T.notANumber)).toBeVisible();
      await expect(page).toHaveURL(/\/reports\/create$/);
      await last.fill('1e3');
      await expect(page.getByText(T.notANumber)).toBeVisible();
      await last.fill(T.grouped);
      await expect(page.getByText(T.notANumber)).toHaveCount(0);
      await last.fill(T.east);
      await expect(page.getByText(T.notANumber)).toHaveCount(0);
      await saveDraft.click();

      await expect(page.getByText(T.created, { exact: true })).toBeVisible();
      await expect(page).toHaveURL(/\/department\/[0-9a-f-]{36}\/reports\/[0-9a-f-]{36}$/);
      reportUrl = new URL(page.url()).pathname;
      await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
      await expect(status(page)).toHaveText(T.status.draft);
      await expect(page.getByTestId('report-table')).toContainText('East');

      await page.getByRole('button', { name: T.submit }).click();
      await expect(page.getByText(T.submitted, { exact: true })).toBeVisible();
      await expect(status(page)).toHaveText(T.status.submitted);
      await expect(page.getByRole('link', { name: T.edit })).toHaveCount(0);
    });

    test('the CEO finds it, reads the chart and the table, downloads it and rejects it with notes', async ({ page }) => {
      await signIn(page, ceo);
      await nav(page).getByRole('link', { name: T.navReports }).click();
      await expect(page).toHaveURL(/\/ceo\/reports$/);
      await page.getByRole('link', { name: title }).click();
      await expect(page).toHaveURL(/\/ceo\/reports\/[0-9a-f-]{36}$/);
      await expect(status(page)).toHaveText(T.status.submitted);
      // The chart draws the table's numbers: one bar per region, as high as its revenue.
      await expectBarChart(page.getByTestId('report-chart'), ['North', 'South', 'East'], {
        North: { Revenue: 120 },
        South: { Revenue: 80 },
        East: { Revenue: 95.5 },
      });
      await expect(page.getByTestId('report-table')).toContainText('North');
      await expect(page.getByTestId('report-table')).toContainText('South');

      // The download is a real workbook holding the report and its table.
      await page.getByRole('button', { name: T.download }).click();
      const download = page.waitForEvent('download');
      await page.getByRole('menuitem', { name: T.xlsx }).click();
      const file = await download;
      expect(file.suggestedFilename()).toBe(`finance-${title.toLowerCase().replaceAll(' ', '-')}-2026-01-01.xlsx`);
      // It speaks the app's language (the app sends lang=), with the screens' words and dates.
      const book = readXlsx((await file.path())!);
      const [reportSheet, dataSheet] = T.workbook.sheets;
      expect(Object.keys(book)).toEqual(T.workbook.sheets);
      expect(book[reportSheet].slice(0, 5)).toEqual(T.workbook.fields(title, author.name));
      expect(book[reportSheet]).toContainEqual([T.workbook.content, 'Sales went up in the North.']);
      expect(book[dataSheet]).toEqual([
        ['Region', 'Revenue'],
        ['North', '120'],
        ['South', '80'],
        ['East', '95.5'],
      ]);

      // Rejecting needs notes.
      await page.getByRole('button', { name: exact(T.reject) }).click();
      await expect(page.getByText(T.notesRequired)).toBeVisible();
      await page.getByRole('textbox', { name: T.reviewNotes }).fill(notes.reject);
      await page.getByRole('button', { name: exact(T.reject) }).click();
      await expect(page.getByText(T.rejected, { exact: true })).toBeVisible();
      await expect(status(page)).toHaveText(T.status.rejected);
      await expect(page.getByTestId('review-notes')).toContainText(notes.reject);
    });

    test('the author sees the rejection, changes a cell and submits again', async ({ page }) => {
      await signIn(page, author);
      await nav(page).getByRole('link', { name: T.navReports }).click();
      const row = page.getByRole('row', { name: new RegExp(escape(title)) });
      await expect(row).toContainText(T.status.rejected);
      await row.getByRole('link', { name: title }).click();
      await expect(page).toHaveURL(new RegExp(`${reportUrl}$`));
      await expect(status(page)).toHaveText(T.status.rejected);
      await expect(page.getByTestId('review-notes')).toContainText(notes.reject);

      await page.getByRole('link', { name: T.edit }).click();
      await expect(page.getByRole('heading', { level: 1, name: T.editTitle })).toBeVisible();
      await expect(page.getByTestId('review-notes')).toContainText(notes.reject);
      await expect(page.getByTestId('review-notes')).toContainText(T.rejectedHint);
      const south = page.getByLabel(T.cell(2, 'Revenue'));
      await expect(south).toHaveValue('80');
      await south.fill('180');
      await page.getByRole('button', { name: T.submit }).click();

      await expect(page.getByText(T.updated, { exact: true })).toBeVisible();
      await expect(page).toHaveURL(new RegExp(`${reportUrl}$`));
      await expect(status(page)).toHaveText(T.status.submitted);
      await expect(southRevenue(page)).toHaveText('180');
    });

    test('the CEO approves it after a confirmation', async ({ page }) => {
      await signIn(page, ceo);
      await page.goto(`/ceo/reports?status=submitted`);
      await page.getByRole('link', { name: title }).click();
      await expect(southRevenue(page)).toHaveText('180');
      // Resubmitted: the rejection is history, not the report's current review.
      await expect(status(page)).toHaveText(T.status.submitted);
      await expect(page.getByTestId('report-history')).toContainText(notes.reject);
      await expect(page.getByTestId('review-notes')).toHaveCount(0);
      await page.getByRole('textbox', { name: T.reviewNotes }).fill(notes.approve);
      await page.getByRole('button', { name: exact(T.approve) }).click();
      const dialog = page.getByRole('dialog', { name: T.approveTitle });
      await expect(dialog).toContainText(T.approveConfirm);
      await dialog.getByRole('button', { name: exact(T.approve) }).click();
      await expect(page.getByText(T.approved, { exact: true })).toBeVisible();
      await expect(status(page)).toHaveText(T.status.approved);
      await expect(page.getByRole('button', { name: exact(T.approve) })).toHaveCount(0);
    });

    test('the author sees it approved, with the review notes and the whole history', async ({ page }) => {
      await signIn(page, author);
      await page.goto(reportUrl);
      await expect(status(page)).toHaveText(T.status.approved);
      await expect(page.getByTestId('review-notes')).toContainText(notes.approve);
      await expect(page.getByRole('link', { name: T.edit })).toHaveCount(0);
      const history = page.getByTestId('report-history');
      await expect(history).toContainText(T.transition(T.status.submitted, T.status.rejected));
      await expect(history).toContainText(notes.reject);
      await expect(history).toContainText(T.transition(T.status.submitted, T.status.approved));
    });

    test('the dashboards count it, and the admin reads it from the enterprise', async ({ page }) => {
      const { draft, submitted, reviewed, approved, rejected } = T.counts;
      await signIn(page, author);
      await expectFigure(page.getByTestId('summary-drafts'), T.drafts, '0');
      await nav(page).getByRole('link', { name: T.navDepartment }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Finance' })).toBeVisible();
      await expectFigure(page.getByTestId('count-draft'), draft, '0');
      await expectFigure(page.getByTestId('count-submitted'), submitted, '0');
      await expectFigure(page.getByTestId('count-reviewed'), reviewed, '0');
      await expectFigure(page.getByTestId('count-approved'), approved, '1');
      await expectFigure(page.getByTestId('count-rejected'), rejected, '0');
      await expectBarChart(page.getByTestId('chart'), [draft, submitted, reviewed, approved, rejected], {
        [draft]: { value: 0 },
        [submitted]: { value: 0 },
        [reviewed]: { value: 0 },
        [approved]: { value: 1 },
        [rejected]: { value: 0 },
      });
      await expect(page.getByRole('link', { name: title })).toBeVisible();

      await page.evaluate(() => window.sessionStorage.clear());
      await signIn(page, ceo);
      await nav(page).getByRole('link', { name: T.navMyEnterprise }).click();
      await expectFigure(page.getByTestId('ceo-kpi-approved'), approved, '1');
      await expectFigure(page.getByTestId('ceo-kpi-submitted'), submitted, '0');
      // One stack per department, one segment per status: only Finance has a report, approved.
      const none = { [submitted]: 0, [reviewed]: 0, [approved]: 0, [rejected]: 0 };
      await expectBarChart(
        page.getByTestId('ceo-chart'),
        T.departments,
        Object.fromEntries(T.departments.map((department, index) => [department, index === 0 ? { ...none, [approved]: 1 } : none])),
      );
      await expect(page.getByRole('link', { name: title }).first()).toHaveAttribute('href', /\/ceo\/reports\/[0-9a-f-]{36}$/);

      await page.evaluate(() => window.sessionStorage.clear());
      await signIn(page, admin);
      await page.goto(`/admin/enterprises/${ids.enterprise}`);
      const reports = page.getByRole('region', { name: T.enterpriseReports });
      await reports.getByRole('link', { name: title }).click();
      await expect(page).toHaveURL(new RegExp(`/ceo/reports/[0-9a-f-]{36}\\?enterpriseId=${ids.enterprise}$`));
      await expect(status(page)).toHaveText(T.status.approved);
      await expect(southRevenue(page)).toHaveText('180');
      await expect(page.getByRole('button', { name: exact(T.reject) })).toHaveCount(0);

      // By its id alone (a link from elsewhere): the server finds its enterprise.
      await page.goto(new URL(page.url()).pathname);
      await expect(status(page)).toHaveText(T.status.approved);
      await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
      await expect(southRevenue(page)).toHaveText('180');
    });

    test('the author deletes a draft after confirming it, and it leaves the list', async ({ page, request }) => {
      const doomed = `Draft to delete ${runId}`;
      const id = await createReport(request, doomed);
      await signIn(page, author);
      await nav(page).getByRole('link', { name: T.navReports }).click();
      await page.getByRole('link', { name: doomed }).click();
      await expect(page.getByRole('heading', { level: 1, name: doomed })).toBeVisible();

      // Cancelling keeps it.
      await page.getByRole('button', { name: exact(T.delete) }).click();
      let dialog = page.getByRole('dialog', { name: T.deleteTitle });
      await expect(dialog).toContainText(T.deleteConfirm);
      await dialog.getByRole('button', { name: exact(T.cancel) }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByRole('heading', { level: 1, name: doomed })).toBeVisible();

      await page.getByRole('button', { name: exact(T.delete) }).click();
      dialog = page.getByRole('dialog', { name: T.deleteTitle });
      await expect(dialog).toContainText(T.deleteConfirm);
      await expect(dialog).toContainText(T.deleteNamed(doomed));
      await expect(dialog).toContainText(T.deleteIrreversible);
      // Once deleted, the app does not ask for it again (it would only get a 404).
      const askedAfter: string[] = [];
      const deleted = page.waitForResponse((response) => response.request().method() === 'DELETE' && response.url().endsWith(`/api/v1/reports/${id}`));
      page.on('request', (request) => {
        if (request.method() === 'GET' && new URL(request.url()).pathname === `/api/v1/reports/${id}`) askedAfter.push(request.url());
      });
      await dialog.getByRole('button', { name: exact(T.delete) }).click();
      await deleted;

      await expectToast(page, T.deleted);
      await expect(page).toHaveURL(/\/department\/[0-9a-f-]{36}\/reports$/);
      await expect(page.getByRole('link', { name: title })).toBeVisible(); // the list is there...
      await expect(page.getByRole('link', { name: doomed })).toHaveCount(0); // ...without it
      expect(askedAfter).toEqual([]);
      expect((await request.get(`/api/v1/reports/${id}`, { headers: await apiHeaders(request, author) })).status()).toBe(404);
    });

    test('what the server refuses is said: a report submitted meanwhile, a department left meanwhile', async ({ page, request }) => {
      // A tab whose live connection is down does not hear of changes made elsewhere (with it up,
      // the page would refresh first): the server's refusals are what this test is about.
      await page.routeWebSocket(/\/api\/v1\/ws$/, () => {});
      const headers = await apiHeaders(request, author);
      const submitElsewhere = async (id: string) =>
        expect((await request.put(`/api/v1/reports/${id}`, { headers, data: { status: 'submitted' } })).status()).toBe(200);
      await signIn(page, author);

      // Submitted from another tab: submitting it here again is refused.
      const first = `Submitted twice ${runId}`;
      const firstId = await createReport(request, first);
      await page.goto(`/department/${ids.finance}/reports/${firstId}`);
      await expect(status(page)).toHaveText(T.status.draft);
      await submitElsewhere(firstId);
      await page.getByRole('button', { name: T.submit }).click();
      await expectToast(page, T.updateFailed, T.statusRefused);

      // Submitted from another tab: deleting it here is refused, and it stays.
      const second = `Deleted too late ${runId}`;
      const secondId = await createReport(request, second);
      await page.goto(`/department/${ids.finance}/reports/${secondId}`);
      await expect(status(page)).toHaveText(T.status.draft);
      await submitElsewhere(secondId);
      await page.getByRole('button', { name: exact(T.delete) }).click();
      await page
        .getByRole('dialog', { name: T.deleteTitle })
        .getByRole('button', { name: exact(T.delete) })
        .click();
      await expectToast(page, T.deleteFailed, T.statusRefused);
      await page.reload();
      await expect(status(page)).toHaveText(T.status.submitted);

      // Taken out of the department while writing: the new report is refused.
      await page.goto(`/department/${ids.finance}/reports/create`);
      await page.getByLabel(field(T.fieldTitle)).fill(`Too late ${runId}`);
      await page.getByLabel(field(T.fieldContent)).fill('Written after leaving.');
      await page.getByLabel(field(T.fieldPeriodStart)).fill('2026-01-01');
      await page.getByLabel(field(T.fieldPeriodEnd)).fill('2026-01-31');
      const ceoHeaders = await apiHeaders(request, ceo);
      const membership = `/api/v1/enterprises/${ids.enterprise}/departments/${ids.finance}/users`;
      expect((await request.delete(`${membership}/${ids.author}`, { headers: ceoHeaders })).ok()).toBe(true);
      try {
        await page.getByRole('button', { name: T.saveDraft }).click();
        await expectToast(page, T.createFailed, T.notFound);
        await expect(page.getByRole('heading', { level: 1, name: T.createTitle })).toBeVisible();
      } finally {
        expect((await request.post(membership, { headers: ceoHeaders, data: { userId: ids.author } })).ok()).toBe(true);
      }
    });

    test('a number column reads as one: its header is right-aligned over its right-aligned figures, a text column stays left', async ({ page, request }) => {
      const id = await createReport(request, `Aligned figures ${runId}`);
      await signIn(page, author);
      await page.goto(`/department/${ids.finance}/reports/${id}`);
      const table = page.getByTestId('report-table');
      const [region, revenue] = [table.getByRole('columnheader', { name: 'Region' }), table.getByRole('columnheader', { name: 'Revenue' })];
      await expect(table.getByRole('columnheader')).toHaveText(['Region', 'Revenue']);
      const rows = table.locator('tbody tr');
      await expect(rows).toHaveCount(3);
      const figures = rows.locator('td:nth-child(2)');
      const labels = rows.locator('td:nth-child(1)');
      await expect(figures).toHaveText(T.figures);
      await expect(labels).toHaveText(['North', 'South', 'East']);

      await expect(revenue).toHaveCSS('text-align', /^(right|end)$/);
      for (const figure of await figures.all()) await expect(figure).toHaveCSS('text-align', /^(right|end)$/);
      await expect(region).toHaveCSS('text-align', /^(left|start)$/);

      // What is seen: the header's text ends where the figures end (all of them, whatever their
      // length), and the text column's header starts where its labels start.
      const header = await textBox(revenue);
      for (const figure of await figures.all()) expect(Math.abs((await textBox(figure)).right - header.right)).toBeLessThanOrEqual(1);
      const widths = await Promise.all((await figures.all()).map(async (figure) => Math.round((await textBox(figure)).right - (await textBox(figure)).left)));
      expect(new Set(widths).size).toBeGreaterThan(1); // figures of different widths, so a left edge would not line up
      const regionHeader = await textBox(region);
      for (const label of await labels.all()) expect(Math.abs((await textBox(label)).left - regionHeader.left)).toBeLessThanOrEqual(1);
    });

    test('the history says how a report began, the status in lower case', async ({ page, request }) => {
      const draft = await createReport(request, `Begun as a draft ${runId}`);
      const submitted = await createReport(request, `Begun submitted ${runId}`, 'submitted');
      await signIn(page, author);
      for (const [id, text] of [
        [draft, T.createdAs.draft],
        [submitted, T.createdAs.submitted],
      ]) {
        await page.goto(`/department/${ids.finance}/reports/${id}`);
        const history = page.getByTestId('report-history');
        // Exactly (case included): "Created as Draft" must not pass.
        await expect(history.getByText(text, { exact: true })).toBeVisible();
        await expect(history.getByText(new RegExp(`^${escape(text)}$`, 'i'))).toHaveCount(1);
      }
    });

    test("at 1280 px the admin's table of the enterprise's reports keeps each row short: days whole, no cell over two lines, nothing out of its box", async ({
      page,
      request,
    }) => {
      // An enterprise of its own, with names as people have them (the other tests' carry the run's
      // id, which no real title or name has), and three reports in review.
      const boss = { email: `rceo-table-${runId}@e2e.test`, password: 'ceo-password-1' };
      const writer = { email: `ada-table-${runId}@e2e.test`, password: 'author-password-1' };
      const made = await request.post('/api/v1/enterprises', {
        headers: await apiHeaders(request, admin),
        data: { name: `Table layout ${runId}`, ceoFullName: 'Grace Hopper', ceoEmail: boss.email, ceoPassword: boss.password },
      });
      expect(made.status(), await made.text()).toBe(201);
      const enterprise = ((await made.json()) as { id: string }).id;
      const bossHeaders = await apiHeaders(request, boss);
      const departments = (await (await request.get(`/api/v1/enterprises/${enterprise}/departments`, { headers: bossHeaders })).json()) as {
        id: string;
        type: string;
      }[];
      const finance = departments.find((d) => d.type === 'finance')!.id;
      const user = await request.post('/api/v1/users', {
        headers: bossHeaders,
        data: { fullName: 'Ada Lovelace', email: writer.email, password: writer.password, role: 'DepartmentUser', departmentId: finance },
      });
      expect(user.status(), await user.text()).toBe(201);
      const writerHeaders = await apiHeaders(request, writer);
      for (const reportTitle of T.tableTitles) {
        const report = await request.post(`/api/v1/departments/${finance}/reports`, {
          headers: writerHeaders,
          data: { title: reportTitle, content: 'Figures.', periodStart: '2026-04-01', periodEnd: '2026-06-30', status: 'submitted', data: TABLE },
        });
        expect(report.status(), await report.text()).toBe(201);
      }

      await page.setViewportSize({ width: 1280, height: 800 });
      await signIn(page, admin);
      await page.goto(`/admin/enterprises/${enterprise}`);
      const reports = page.getByRole('region', { name: T.enterpriseReports });
      await expect(reports.getByTestId('report-row')).toHaveCount(T.tableTitles.length);
      await settle(page);
      await expect(reports.getByRole('columnheader')).toHaveText(T.reportColumns);

      for (const reportTitle of T.tableTitles) {
        const row = reports.getByTestId('report-row').filter({ has: page.getByRole('link', { name: reportTitle, exact: true }) });
        // Title, status, period and last change (the columns above, counted from 1).
        const [titleCell, status, period, updated] = [1, 3, 4, 6].map((column) => row.locator(`td:nth-child(${column})`));
        expect.soft((await textLines(titleCell)).length, `the title of "${reportTitle}"`).toBeLessThanOrEqual(2);
        expect.soft(await textLines(status), `the status of "${reportTitle}"`).toEqual([T.status.submitted]);
        expect.soft(T.periodLines, `the period of "${reportTitle}"`).toContainEqual(await textLines(period));
        const moment = await textLines(updated);
        expect.soft(moment.length, `the last change of "${reportTitle}": ${JSON.stringify(moment)}`).toBeLessThanOrEqual(2);
        if (moment.length === 2) moment.forEach((line, i) => expect.soft(line, `the last change of "${reportTitle}"`).toMatch(T.momentLines[i]));
      }
      // The table fits its card: no sideways scrolling, no text out of its box.
      const table = reports.getByRole('table');
      expect((await table.boundingBox())!.width).toBeLessThanOrEqual((await reports.boundingBox())!.width);
      expect(await overflowing(page)).toEqual([]);
    });
  });
}
