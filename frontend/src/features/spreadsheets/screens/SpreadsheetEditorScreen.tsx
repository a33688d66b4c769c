import { ActionIcon, Alert, Button, Card, Menu, Skeleton, Stack, Text, Tooltip } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconAlertCircle, IconChartBar, IconDownload, IconPencil } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import type { ParseKeys } from 'i18next';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { GridSelection } from '@glideapps/glide-data-grid';
import { SheetFormat, type Spreadsheet } from '@/api/generated/model';
import { createSpreadsheet, getExportSpreadsheetUrl, saveSpreadsheet, useGetSpreadsheet } from '@/api/generated/spreadsheets/spreadsheets';
import { PageHeader } from '@/components/PageHeader';
import { LoadState } from '@/components/reports/ReportState';
import { downloadFile } from '@/lib/download';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { Autosaver, type SaveState } from '../autosave';
import { invalidateSpreadsheets, useSpreadsheetRoute, whenNotBusy } from '../api';
import { ConflictDialog } from '../components/ConflictDialog';
import { confirmDeleteSheet } from '../components/confirmations';
import { FormulaBar } from '../components/FormulaBar';
import { MAX_NAME, NameDialog } from '../components/NameDialog';
import { ReportDialog } from '../components/ReportDialog';
import { SaveIndicator } from '../components/SaveIndicator';
import { type GridHandle, SheetGrid, cellSelection, selectionArea } from '../components/SheetGrid';
import { SheetTabs } from '../components/SheetTabs';
import classes from '../components/spreadsheet.module.css';
import { Toolbar } from '../components/Toolbar';
import { base64ToBytes, bytesToBase64 } from '../engine/base64';
import { ENGINE_VERSION, loadEngine } from '../engine/load';
import { type Engine, type SheetInfo, type StyleChange, Workbook, areaName } from '../engine/workbook';

/** Excel's limit on a sheet's name. */
const MAX_SHEET_NAME = 31;

/** /department/:id/spreadsheet/:spreadsheetId: the spreadsheet editor (read-only for the CEO). */
export default function SpreadsheetEditorScreen() {
  const { t } = useTranslation();
  const { departmentId, spreadsheetId, canOpen, canEdit, ceo } = useSpreadsheetRoute();
  // The workbook lives in the engine once opened: the query is read once, and again only on reload
  // (the conflict dialog's `refetch`). 'static', not Infinity: an invalidation reads again any query
  // that is merely never stale, and the app invalidates every query when the realtime socket
  // reconnects or a report changes status. That read brought the version this editor's own saves
  // had made, so a new `Editor` key: the open editor was replaced by the server's copy, what was
  // typed since the last save vanished from the grid (the closing autosaver still sent it, unseen)
  // and the next save was refused as stale (409).
  const spreadsheet = useGetSpreadsheet(spreadsheetId, {
    query: { enabled: canOpen, staleTime: 'static', gcTime: 0, refetchOnWindowFocus: false, refetchOnReconnect: false },
  });
  const [engine, setEngine] = useState<Engine | null>(null);
  const [engineError, setEngineError] = useState<unknown>(null);
  useDocumentTitle(`${spreadsheet.data?.name ?? t('spreadsheets.editor.title')} · ${t('app.name')}`);

  useEffect(() => {
    let live = true;
    loadEngine().then(
      (loaded) => live && setEngine(() => loaded),
      (error: unknown) => live && setEngineError(error),
    );
    return () => {
      live = false;
    };
  }, []);

  const back = { to: href('departmentSpreadsheet', { id: departmentId }), label: t('spreadsheets.backToList') };
  const data = spreadsheet.data;
  if (!canOpen || !data || data.departmentId !== departmentId) {
    return (
      <LoadState query={canOpen && !data ? spreadsheet : undefined} back={back} title={t('spreadsheets.editor.title')} notFound={t('spreadsheets.notFound')} />
    );
  }
  const problem: ParseKeys | null = engineError
    ? 'spreadsheets.editor.engineFailed'
    : data.engineVersion !== ENGINE_VERSION
      ? 'spreadsheets.editor.otherEngine'
      : null;
  if (problem) {
    return (
      <Stack gap="lg">
        <PageHeader title={data.name} back={back} />
        <Alert color="red" icon={<IconAlertCircle aria-hidden />} title={t('spreadsheets.editor.cannotOpen')} role="alert">
          {t(problem, { version: data.engineVersion })}
        </Alert>
      </Stack>
    );
  }
  if (!engine) {
    return (
      <Stack gap="lg" role="status" aria-label={t('spreadsheets.editor.loadingEngine')} aria-busy>
        <Skeleton height={36} width="40%" />
        <Skeleton height={420} radius="md" />
      </Stack>
    );
  }
  return (
    <Editor
      key={`${data.id}:${data.version}`}
      spreadsheet={data}
      engine={engine}
      editable={data.editable && canEdit && !ceo}
      departmentId={departmentId}
      back={back}
      onReload={async () => (await spreadsheet.refetch()).isSuccess}
    />
  );
}

type EditorProps = {
  spreadsheet: Spreadsheet;
  engine: Engine;
  editable: boolean;
  departmentId: string;
  back: { to: string; label: string };
  /** Reads the spreadsheet again (after a conflict); true once it is read. */
  onReload: () => Promise<boolean>;
};

function openWorkbook(engine: Engine, content: string): Workbook | null {
  try {
    return Workbook.fromBytes(engine, base64ToBytes(content));
  } catch {
    return null;
  }
}

function Editor({ spreadsheet, engine, editable, departmentId, back, onReload }: EditorProps) {
  const { t } = useTranslation();
  const [workbook] = useState(() => openWorkbook(engine, spreadsheet.content));
  if (!workbook) {
    return (
      <Stack gap="lg">
        <PageHeader title={spreadsheet.name} back={back} />
        <Alert color="red" icon={<IconAlertCircle aria-hidden />} title={t('spreadsheets.editor.cannotOpen')} role="alert">
          {t('spreadsheets.editor.unreadable')}
        </Alert>
      </Stack>
    );
  }
  return <WorkbookEditor workbook={workbook} spreadsheet={spreadsheet} editable={editable} departmentId={departmentId} back={back} onReload={onReload} />;
}

function WorkbookEditor({ workbook, spreadsheet, editable, departmentId, back, onReload }: Omit<EditorProps, 'engine'> & { workbook: Workbook }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const grid = useRef<GridHandle>(null);
  const [revision, setRevision] = useState(0);
  const [sheet, setSheet] = useState(() => workbook.sheets()[0]?.index ?? 0);
  const [selection, setSelection] = useState<GridSelection>(() => cellSelection(0, 0));
  const [name, setName] = useState(spreadsheet.name);
  const [saveState, setSaveState] = useState<SaveState>({ status: 'saved', version: spreadsheet.version, savedAt: spreadsheet.updatedAt });
  const [dialog, setDialog] = useState<'rename' | 'report' | 'conflict' | { sheet: SheetInfo } | null>(null);
  const [sheetNameError, setSheetNameError] = useState<ParseKeys | null>(null);
  const [conflictBusy, setConflictBusy] = useState<'reload' | 'copy' | null>(null);
  const [downloading, setDownloading] = useState(false);
  const saver = useRef<Autosaver | null>(null);
  const freeing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // One autosaver while the editor is open; closing it saves what is pending, then the engine's
  // memory goes. (StrictMode runs this twice: the first close finds nothing to save.) Leaving the
  // page with changes not on the server yet, the browser asks first: each autosaver sees to it
  // until its last save is on the server, even once its editor has gone.
  useEffect(() => {
    clearTimeout(freeing.current);
    const created = editable
      ? new Autosaver({
          version: spreadsheet.version,
          snapshot: () => workbook.toBytes(),
          save: ({ content, version, name: newName }) =>
            saveSpreadsheet(spreadsheet.id, { content: bytesToBase64(content), version, ...(newName === undefined ? {} : { name: newName }) }),
          onChange: (state) => {
            setSaveState(state);
            if (state.status === 'conflict') setDialog('conflict');
          },
        })
      : null;
    saver.current = created;
    return () => {
      saver.current = null;
      const closing = created ? created.close().then(() => invalidateSpreadsheets(client, departmentId)) : Promise.resolve();
      freeing.current = setTimeout(() => void closing.finally(() => workbook.free()), 0);
    };
  }, [editable, spreadsheet.id, spreadsheet.version, workbook, client, departmentId]);

  const sheets = workbook.sheets();
  const activeSheet = sheets.find((entry) => entry.index === sheet) ?? sheets[0];
  const extent = useMemo(() => workbook.extent(activeSheet.index), [workbook, activeSheet.index, revision]); // eslint-disable-line react-hooks/exhaustive-deps
  const area = selectionArea(selection, activeSheet.index, Math.max(200, extent.rows), Math.max(26, extent.columns));
  const anchor = selection.current?.cell;
  const activeCell = anchor ? workbook.cell(activeSheet.index, anchor[1] + 1, anchor[0] + 1) : null;

  const changed = useCallback(() => {
    setRevision((value) => value + 1);
    saver.current?.change();
    // Undoing a new sheet takes it away: stay on one that exists.
    const remaining = workbook.sheets();
    if (!remaining.some((entry) => entry.index === sheet)) setSheet(remaining[0]?.index ?? 0);
  }, [workbook, sheet]);

  const undo = useCallback(() => {
    if (!editable || !workbook.canUndo()) return;
    workbook.undo();
    changed();
  }, [editable, workbook, changed]);
  const redo = useCallback(() => {
    if (!editable || !workbook.canRedo()) return;
    workbook.redo();
    changed();
  }, [editable, workbook, changed]);
  const applyStyle = useCallback(
    (change: StyleChange) => {
      if (!editable || !area) return;
      workbook.style(area, change);
      changed();
      grid.current?.focus();
    },
    [editable, area, workbook, changed],
  );
  const toggleStyle = useCallback(
    (style: 'bold' | 'italic') => applyStyle(style === 'bold' ? { path: 'font.b', value: !activeCell?.bold } : { path: 'font.i', value: !activeCell?.italic }),
    [applyStyle, activeCell],
  );

  const selectSheet = (index: number) => {
    setSheet(index);
    setSelection(cellSelection(0, 0));
  };
  const addSheet = () => {
    const index = workbook.addSheet();
    changed();
    selectSheet(index);
  };
  const renameSheet = (target: SheetInfo, newName: string) => {
    try {
      workbook.renameSheet(target.index, newName);
    } catch {
      setSheetNameError('spreadsheets.sheets.nameRefused');
      return;
    }
    setDialog(null);
    changed();
  };
  const deleteSheet = (target: SheetInfo) =>
    confirmDeleteSheet(target.name, t, () => {
      workbook.deleteSheet(target.index);
      changed();
      selectSheet(workbook.sheets()[0]?.index ?? 0);
    });

  /** Saves what is pending: downloads and ranges are read by the server from the saved version. */
  const saveNow = async (): Promise<boolean> => {
    if (!saver.current) return true;
    return (await saver.current.flush()).status === 'saved';
  };

  const download = async (format: SheetFormat) => {
    setDownloading(true);
    try {
      if (!(await saveNow())) notifications.show({ color: 'orange', message: t('spreadsheets.download.lastSaved') });
      const url = getExportSpreadsheetUrl(spreadsheet.id, format === SheetFormat.csv ? { format, sheet: activeSheet.name } : { format });
      await whenNotBusy(() => downloadFile(url, `${name}.${format}`));
    } catch (error) {
      notifications.show({ color: 'red', title: t('spreadsheets.download.failed'), message: errorMessage(error, t) });
    } finally {
      setDownloading(false);
    }
  };

  const reload = async () => {
    setConflictBusy('reload');
    saver.current?.dispose();
    // Read again: a new version opens in a new editor (this one goes).
    if (!(await onReload())) {
      setConflictBusy(null);
      notifications.show({ color: 'red', message: t('common.loadFailed') });
    }
  };

  const keepCopy = async () => {
    setConflictBusy('copy');
    try {
      const copyName = t('spreadsheets.conflict.copyName', { name }).slice(0, MAX_NAME);
      const created = await createSpreadsheet(departmentId, { name: copyName });
      await whenNotBusy(() => saveSpreadsheet(created.id, { content: bytesToBase64(workbook.toBytes()), version: created.version }));
      saver.current?.dispose();
      await invalidateSpreadsheets(client, departmentId);
      notifications.show({ color: 'teal', message: t('spreadsheets.conflict.copied', { name: copyName }) });
      navigate(href('departmentSpreadsheetEditor', { id: departmentId, spreadsheetId: created.id }), { replace: true });
    } catch (error) {
      setConflictBusy(null);
      notifications.show({ color: 'red', title: t('spreadsheets.conflict.copyFailed'), message: errorMessage(error, t) });
    }
  };

  const downloadMenu = (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" leftSection={<IconDownload size={16} aria-hidden />} loading={downloading}>
          {t('spreadsheets.download.action')}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => void download(SheetFormat.xlsx)}>{t('spreadsheets.download.xlsx')}</Menu.Item>
        <Menu.Item onClick={() => void download(SheetFormat.csv)}>{t('spreadsheets.download.csv', { sheet: activeSheet.name })}</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );

  const renamingSheet = dialog && typeof dialog === 'object' ? dialog.sheet : null;
  return (
    <Stack gap="md">
      <PageHeader
        title={name}
        back={back}
        badge={
          editable && (
            <Tooltip label={t('spreadsheets.rename.action')} withArrow>
              <ActionIcon variant="subtle" color="gray" aria-label={t('spreadsheets.rename.action')} onClick={() => setDialog('rename')}>
                <IconPencil size={18} aria-hidden />
              </ActionIcon>
            </Tooltip>
          )
        }
        actions={
          <>
            <SaveIndicator state={editable ? saveState : 'readOnly'} onRetry={() => void saver.current?.flush()} onResolve={() => setDialog('conflict')} />
            {editable && (
              <Button variant="default" leftSection={<IconChartBar size={16} aria-hidden />} onClick={() => setDialog('report')}>
                {t('spreadsheets.report.action')}
              </Button>
            )}
            {downloadMenu}
          </>
        }
      />
      {!editable && (
        <Text size="sm" c="dimmed">
          {t('spreadsheets.editor.readOnlyHint')}
        </Text>
      )}
      <Card withBorder radius="md" padding={0}>
        <Stack gap={0}>
          <Stack gap="xs" p="xs">
            {editable && (
              <Toolbar cell={activeCell} canUndo={workbook.canUndo()} canRedo={workbook.canRedo()} onUndo={undo} onRedo={redo} onStyle={applyStyle} />
            )}
            <FormulaBar
              address={area ? areaName(area) : ''}
              input={activeCell?.input ?? ''}
              editable={editable && Boolean(anchor)}
              onCommit={(input) => {
                if (!anchor) return;
                workbook.setInput(activeSheet.index, anchor[1] + 1, anchor[0] + 1, input);
                changed();
              }}
              onDone={() => grid.current?.focus()}
            />
          </Stack>
          <div className={classes.gridBox}>
            <SheetGrid
              handle={grid}
              workbook={workbook}
              sheet={activeSheet.index}
              revision={revision}
              editable={editable}
              selection={selection}
              onSelectionChange={setSelection}
              onChanged={changed}
              onUndo={undo}
              onRedo={redo}
              onToggleStyle={toggleStyle}
              label={t('spreadsheets.grid.label', { sheet: activeSheet.name })}
            />
          </div>
          <SheetTabs
            sheets={sheets}
            active={activeSheet.index}
            editable={editable}
            onSelect={selectSheet}
            onAdd={addSheet}
            onRename={(target) => {
              setSheetNameError(null);
              setDialog({ sheet: target });
            }}
            onDelete={deleteSheet}
            onPicked={() => setTimeout(() => grid.current?.focus(), 0)}
          />
        </Stack>
      </Card>

      <NameDialog
        opened={dialog === 'rename'}
        title={t('spreadsheets.rename.title', { name })}
        label={t('spreadsheets.fields.name')}
        initialName={name}
        submitLabel={t('spreadsheets.rename.submit')}
        saving={false}
        onClose={() => setDialog(null)}
        onSubmit={(newName) => {
          setDialog(null);
          if (newName === name) return;
          setName(newName);
          saver.current?.rename(newName);
        }}
      />
      <NameDialog
        opened={renamingSheet !== null}
        title={t('spreadsheets.sheets.renameTitle', { name: renamingSheet?.name ?? '' })}
        label={t('spreadsheets.sheets.name')}
        initialName={renamingSheet?.name ?? ''}
        submitLabel={t('spreadsheets.rename.submit')}
        saving={false}
        maxLength={MAX_SHEET_NAME}
        error={sheetNameError}
        onClose={() => setDialog(null)}
        onSubmit={(newName) => renamingSheet && renameSheet(renamingSheet, newName)}
      />
      {editable && (
        <ReportDialog
          opened={dialog === 'report'}
          onClose={() => setDialog(null)}
          departmentId={departmentId}
          spreadsheetId={spreadsheet.id}
          spreadsheetName={name}
          sheets={sheets}
          activeSheet={activeSheet.index}
          defaultRange={area && area.height > 1 && area.height <= 10_001 ? areaName(area) : ''}
          prepare={saveNow}
        />
      )}
      <ConflictDialog
        opened={dialog === 'conflict'}
        name={name}
        busy={conflictBusy}
        onReload={() => void reload()}
        onKeepCopy={() => void keepCopy()}
        onClose={() => setDialog(null)}
      />
    </Stack>
  );
}
