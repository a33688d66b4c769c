import { ActionIcon, Group, Menu, ScrollArea, Tooltip, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { type KeyboardEvent, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { SheetInfo } from '../engine/workbook';
import classes from './spreadsheet.module.css';

type SheetTabsProps = {
  sheets: SheetInfo[];
  active: number;
  editable: boolean;
  onSelect: (sheet: number) => void;
  onAdd: () => void;
  onRename: (sheet: SheetInfo) => void;
  onDelete: (sheet: SheetInfo) => void;
  /** A sheet was picked or added with the pointer: back to the grid. */
  onPicked: () => void;
};

/**
 * The workbook's sheets, as tabs under the grid (arrow keys move between them), with a menu on
 * the active one to rename or delete it, and a button to add one.
 */
export function SheetTabs({ sheets, active, editable, onSelect, onAdd, onRename, onDelete, onPicked }: SheetTabsProps) {
  const { t } = useTranslation();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const position = Math.max(
    0,
    sheets.findIndex((sheet) => sheet.index === active),
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, Home: -position, End: sheets.length - 1 - position };
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const next = sheets[(position + move + sheets.length) % sheets.length];
    onSelect(next.index);
    tabs.current[sheets.indexOf(next)]?.focus();
  };

  const activeSheet = sheets[position];
  return (
    <Group gap={4} wrap="nowrap" className={classes.tabs}>
      {editable && (
        <Tooltip label={t('spreadsheets.sheets.add')} withArrow>
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={t('spreadsheets.sheets.add')}
            onClick={() => {
              onAdd();
              onPicked();
            }}
          >
            <IconPlus size={16} aria-hidden />
          </ActionIcon>
        </Tooltip>
      )}
      <ScrollArea type="auto" scrollbarSize={6} style={{ flex: 1 }}>
        <Group gap={2} wrap="nowrap" role="tablist" aria-label={t('spreadsheets.sheets.label')} onKeyDown={onKeyDown}>
          {sheets.map((sheet, index) => {
            const selected = sheet.index === active;
            return (
              <UnstyledButton
                key={sheet.index}
                ref={(element) => {
                  tabs.current[index] = element;
                }}
                role="tab"
                aria-selected={selected}
                tabIndex={selected ? 0 : -1}
                className={classes.tab}
                data-active={selected || undefined}
                onClick={() => {
                  onSelect(sheet.index);
                  onPicked();
                }}
                onDoubleClick={() => editable && onRename(sheet)}
              >
                {sheet.name}
              </UnstyledButton>
            );
          })}
        </Group>
      </ScrollArea>
      {editable && activeSheet && (
        <Menu position="top-end" withinPortal>
          <Menu.Target>
            <ActionIcon variant="subtle" color="gray" aria-label={t('spreadsheets.sheets.menu', { name: activeSheet.name })}>
              <IconChevronDown size={16} aria-hidden />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconPencil size={16} aria-hidden />} onClick={() => onRename(activeSheet)}>
              {t('spreadsheets.sheets.rename')}
            </Menu.Item>
            <Menu.Item color="red" leftSection={<IconTrash size={16} aria-hidden />} disabled={sheets.length < 2} onClick={() => onDelete(activeSheet)}>
              {t('spreadsheets.sheets.delete')}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      )}
    </Group>
  );
}
