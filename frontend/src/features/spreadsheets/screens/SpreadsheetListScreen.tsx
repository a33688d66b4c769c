import { ActionIcon, Alert, Anchor, Button, Card, FileButton, Menu, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconAlertCircle, IconDots, IconFileSpreadsheet, IconFileUpload, IconPencil, IconPlus, IconTable, IconTrash } from '@tabler/icons-react';
import { keepPreviousData, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { isApiRequestError } from '@/api/mutator';
import { useGetDepartment } from '@/api/generated/departments/departments';
import type { SpreadsheetSummary } from '@/api/generated/model';
import { useListSpreadsheets } from '@/api/generated/spreadsheets/spreadsheets';
import { EmptyMessage } from '@/components/data/EmptyMessage';
import { ListPagination } from '@/components/data/ListPagination';
import { QueryError } from '@/components/data/QueryError';
import { TableSkeleton } from '@/components/data/TableSkeleton';
import { PageHeader } from '@/components/PageHeader';
import { LoadState } from '@/components/reports/ReportState';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { PAGE_SIZE, useListParams } from '@/lib/list-params';
import { href } from '@/lib/paths';
import {
  invalidateSpreadsheets,
  renameSpreadsheet,
  useCreateSpreadsheetMutation,
  useDeleteSpreadsheetMutation,
  useImportSpreadsheetMutation,
  useSpreadsheetRoute,
  whenNotBusy,
} from '../api';
import { confirmDeleteSpreadsheet } from '../components/confirmations';
import { NameDialog } from '../components/NameDialog';

/** The largest file the server imports. */
export const MAX_IMPORT_BYTES = 8 * 1024 * 1024;
const XLSX_TYPES = '.xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** /department/:id/spreadsheet: a department's spreadsheets, to open, create, import, rename and delete. */
export default function SpreadsheetListScreen() {
  const { t } = useTranslation();
  const format = useFormat();
  const navigate = useNavigate();
  const client = useQueryClient();
  const { departmentId, user, ceo, canOpen, canEdit } = useSpreadsheetRoute();
  const list = useListParams([] as const);
  const spreadsheets = useListSpreadsheets(
    departmentId,
    { page: list.page, pageSize: PAGE_SIZE },
    { query: { enabled: canOpen, placeholderData: keepPreviousData } },
  );
  const department = useGetDepartment(user.enterpriseId ?? '', departmentId, { query: { enabled: canOpen && Boolean(user.enterpriseId) } });
  const departmentName = department.data ? t(`departmentTypes.${department.data.type}`) : null;
  useDocumentTitle(`${t('spreadsheets.list.title')} · ${t('app.name')}`);

  const create = useCreateSpreadsheetMutation(departmentId);
  const upload = useImportSpreadsheetMutation(departmentId);
  const remove = useDeleteSpreadsheetMutation(departmentId);
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'rename'; spreadsheet: SpreadsheetSummary } | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [importing, setImporting] = useState(false);
  /** Why the last import failed: said at the import, not in a toast over the page's actions. */
  const [importFailure, setImportFailure] = useState<string | null>(null);

  const back = ceo
    ? { to: href('ceo'), label: t('spreadsheets.backToEnterprise') }
    : { to: href('department', { id: departmentId }), label: t('reports.backToDepartment') };
  if (!canOpen) {
    return <LoadState back={back} title={t('spreadsheets.list.title')} notFound={t('spreadsheets.notFound')} />;
  }
  if (spreadsheets.isError && isApiRequestError(spreadsheets.error) && spreadsheets.error.status === 404) {
    return <LoadState query={spreadsheets} back={back} title={t('spreadsheets.list.title')} notFound={t('spreadsheets.notFound')} />;
  }

  const open = (id: string) => navigate(href('departmentSpreadsheetEditor', { id: departmentId, spreadsheetId: id }));

  const onCreate = (name: string) =>
    create.mutate(
      { id: departmentId, data: { name } },
      {
        onSuccess: (created) => {
          setDialog(null);
          notifications.show({ color: 'teal', message: t('spreadsheets.create.success', { name: created.name }) });
          open(created.id);
        },
        onError: (error) => notifications.show({ color: 'red', title: t('spreadsheets.create.failed'), message: errorMessage(error, t) }),
      },
    );

  const onRename = async (spreadsheet: SpreadsheetSummary, name: string) => {
    setRenaming(true);
    try {
      await whenNotBusy(() => renameSpreadsheet(spreadsheet.id, name));
      setDialog(null);
      notifications.show({ color: 'teal', message: t('spreadsheets.rename.success', { name }) });
    } catch (error) {
      notifications.show({ color: 'red', title: t('spreadsheets.rename.failed'), message: errorMessage(error, t) });
    } finally {
      setRenaming(false);
      void invalidateSpreadsheets(client, departmentId);
    }
  };

  const onImport = async (file: File | null) => {
    if (!file) return;
    setImportFailure(null);
    if (file.size > MAX_IMPORT_BYTES) {
      setImportFailure(t('spreadsheets.import.tooLarge'));
      return;
    }
    setImporting(true);
    try {
      const created = await whenNotBusy(() => upload.mutateAsync({ id: departmentId, data: { file } }));
      notifications.show({ color: 'teal', message: t('spreadsheets.import.success', { name: created.name }) });
      open(created.id);
    } catch (error) {
      const field = isApiRequestError(error) ? error.fields.file : undefined;
      const message =
        field === 'too_long'
          ? t('spreadsheets.import.tooLarge')
          : field === 'too_complex'
            ? t('errors.tooComplex')
            : field
              ? t('spreadsheets.import.unreadable')
              : errorMessage(error, t);
      setImportFailure(message);
    } finally {
      setImporting(false);
    }
  };

  const askDelete = (spreadsheet: SpreadsheetSummary) =>
    confirmDeleteSpreadsheet(spreadsheet.name, t, () =>
      remove.mutate(
        { id: spreadsheet.id },
        {
          onSuccess: () => notifications.show({ color: 'teal', message: t('spreadsheets.delete.success', { name: spreadsheet.name }) }),
          onError: (error) => notifications.show({ color: 'red', title: t('spreadsheets.delete.failed'), message: errorMessage(error, t) }),
        },
      ),
    );

  const actions = canEdit && (
    <>
      <Button leftSection={<IconPlus size={18} aria-hidden />} onClick={() => setDialog({ kind: 'create' })}>
        {t('spreadsheets.create.action')}
      </Button>
      <FileButton onChange={(file) => void onImport(file)} accept={XLSX_TYPES}>
        {(props) => (
          <Button {...props} variant="default" leftSection={<IconFileUpload size={18} aria-hidden />} loading={importing}>
            {t('spreadsheets.import.action')}
          </Button>
        )}
      </FileButton>
    </>
  );

  const body = () => {
    if (spreadsheets.isPending) return <TableSkeleton />;
    if (spreadsheets.isError) {
      return <QueryError error={spreadsheets.error} onRetry={() => void spreadsheets.refetch()} retrying={spreadsheets.isFetching} />;
    }
    const { items, total, pageSize } = spreadsheets.data;
    if (items.length === 0) {
      return (
        <EmptyMessage
          icon={<IconTable size={32} aria-hidden />}
          title={t('spreadsheets.list.empty')}
          description={canEdit ? t('spreadsheets.list.emptyHint') : t('spreadsheets.list.emptyReadOnly')}
          action={actions || undefined}
        />
      );
    }
    return (
      <Stack gap="md">
        <Table.ScrollContainer minWidth={640}>
          <Table highlightOnHover verticalSpacing="sm" aria-busy={spreadsheets.isPlaceholderData}>
            <VisuallyHidden component="caption">{t('spreadsheets.list.caption')}</VisuallyHidden>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('spreadsheets.fields.name')}</Table.Th>
                <Table.Th scope="col">{t('spreadsheets.fields.updatedAt')}</Table.Th>
                <Table.Th scope="col">{t('spreadsheets.fields.createdBy')}</Table.Th>
                {canEdit && (
                  <Table.Th scope="col">
                    <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
                  </Table.Th>
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((spreadsheet) => (
                <Table.Tr key={spreadsheet.id} data-testid="spreadsheet-row">
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={href('departmentSpreadsheetEditor', { id: departmentId, spreadsheetId: spreadsheet.id })}
                      fw={500}
                      style={{ overflowWrap: 'anywhere' }}
                    >
                      <IconFileSpreadsheet size={16} aria-hidden style={{ verticalAlign: 'text-bottom', marginInlineEnd: 6 }} />
                      {spreadsheet.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{format.dateTime(spreadsheet.updatedAt)}</Text>
                    {spreadsheet.updatedByName && (
                      <Text size="xs" c="dimmed">
                        {t('spreadsheets.list.by', { name: spreadsheet.updatedByName })}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{spreadsheet.createdByName ?? '—'}</Table.Td>
                  {canEdit && (
                    <Table.Td ta="end">
                      <Menu position="bottom-end" withinPortal>
                        <Menu.Target>
                          <ActionIcon variant="subtle" color="gray" aria-label={t('spreadsheets.list.actionsFor', { name: spreadsheet.name })}>
                            <IconDots size={18} aria-hidden />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          <Menu.Item leftSection={<IconTable size={16} aria-hidden />} onClick={() => open(spreadsheet.id)}>
                            {t('spreadsheets.list.open')}
                          </Menu.Item>
                          <Menu.Item leftSection={<IconPencil size={16} aria-hidden />} onClick={() => setDialog({ kind: 'rename', spreadsheet })}>
                            {t('spreadsheets.rename.action')}
                          </Menu.Item>
                          <Menu.Divider />
                          <Menu.Item color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={() => askDelete(spreadsheet)}>
                            {t('common.delete')}
                          </Menu.Item>
                        </Menu.Dropdown>
                      </Menu>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <ListPagination page={list.page} pageSize={pageSize} total={total} onChange={list.setPage} label={t('spreadsheets.list.pages')} />
      </Stack>
    );
  };

  const renamed = dialog?.kind === 'rename' ? dialog.spreadsheet : null;
  return (
    <Stack gap="lg">
      <PageHeader
        title={t('spreadsheets.list.title')}
        description={
          departmentName ? t(canEdit ? 'spreadsheets.list.description' : 'spreadsheets.list.descriptionReadOnly', { department: departmentName }) : undefined
        }
        back={back}
        actions={actions || undefined}
      />
      {importFailure && (
        <Alert
          color="red"
          icon={<IconAlertCircle aria-hidden />}
          title={t('spreadsheets.import.failed')}
          role="alert"
          withCloseButton
          closeButtonLabel={t('common.close')}
          onClose={() => setImportFailure(null)}
        >
          {importFailure}
        </Alert>
      )}
      <Card withBorder radius="md" padding="lg">
        {body()}
      </Card>
      <NameDialog
        opened={dialog?.kind === 'create'}
        title={t('spreadsheets.create.title')}
        label={t('spreadsheets.fields.name')}
        initialName={t('spreadsheets.create.defaultName')}
        submitLabel={t('spreadsheets.create.submit')}
        saving={create.isPending}
        onClose={() => setDialog(null)}
        onSubmit={onCreate}
      />
      <NameDialog
        opened={renamed !== null}
        title={t('spreadsheets.rename.title', { name: renamed?.name ?? '' })}
        label={t('spreadsheets.fields.name')}
        initialName={renamed?.name ?? ''}
        submitLabel={t('spreadsheets.rename.submit')}
        saving={renaming}
        onClose={() => setDialog(null)}
        onSubmit={(name) => renamed && void onRename(renamed, name)}
      />
    </Stack>
  );
}
