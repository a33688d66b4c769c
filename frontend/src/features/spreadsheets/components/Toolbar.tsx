import { ActionIcon, ColorSwatch, Divider, Group, Menu, Select, Tooltip } from '@mantine/core';
import {
  IconAlignCenter,
  IconAlignLeft,
  IconAlignRight,
  IconArrowBackUp,
  IconArrowForwardUp,
  IconBold,
  IconBucketDroplet,
  IconItalic,
  IconTextColor,
} from '@tabler/icons-react';
import type { ParseKeys } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { CellView, StyleChange } from '../engine/workbook';

/** Number formats offered (the engine's format codes, as Excel writes them). */
export const NUMBER_FORMATS: readonly { code: string; label: ParseKeys }[] = [
  { code: 'general', label: 'spreadsheets.formats.general' },
  { code: '#,##0.00', label: 'spreadsheets.formats.number' },
  { code: '#,##0', label: 'spreadsheets.formats.integer' },
  { code: '0%', label: 'spreadsheets.formats.percent' },
  { code: '0.00%', label: 'spreadsheets.formats.percentDecimals' },
  { code: '$#,##0.00', label: 'spreadsheets.formats.dollar' },
  { code: '#,##0.00 "€"', label: 'spreadsheets.formats.euro' },
  { code: 'yyyy-mm-dd', label: 'spreadsheets.formats.date' },
  { code: '0.00E+00', label: 'spreadsheets.formats.scientific' },
];

type Colour = { value: string | null; label: ParseKeys };

const TEXT_COLOURS: readonly Colour[] = [
  { value: null, label: 'spreadsheets.colours.automatic' },
  { value: '#C92A2A', label: 'spreadsheets.colours.red' },
  { value: '#D9480F', label: 'spreadsheets.colours.orange' },
  { value: '#2B8A3E', label: 'spreadsheets.colours.green' },
  { value: '#1864AB', label: 'spreadsheets.colours.blue' },
  { value: '#862E9C', label: 'spreadsheets.colours.purple' },
  { value: '#495057', label: 'spreadsheets.colours.gray' },
];

const FILL_COLOURS: readonly Colour[] = [
  { value: null, label: 'spreadsheets.colours.none' },
  { value: '#FFF3BF', label: 'spreadsheets.colours.yellow' },
  { value: '#D3F9D8', label: 'spreadsheets.colours.green' },
  { value: '#D0EBFF', label: 'spreadsheets.colours.blue' },
  { value: '#FFE3E3', label: 'spreadsheets.colours.red' },
  { value: '#FFE8CC', label: 'spreadsheets.colours.orange' },
  { value: '#E9ECEF', label: 'spreadsheets.colours.gray' },
];

type ToolbarProps = {
  /** The active cell: its style shows which buttons are on. */
  cell: CellView | null;
  canUndo: boolean;
  canRedo: boolean;
  onUndo: () => void;
  onRedo: () => void;
  onStyle: (change: StyleChange) => void;
};

function ToolButton({
  label,
  onClick,
  disabled,
  pressed,
  children,
}: {
  label: string;
  onClick: () => void;
  disabled?: boolean;
  pressed?: boolean;
  children: ReactNode;
}) {
  return (
    <Tooltip label={label} withArrow openDelay={400}>
      <ActionIcon
        variant={pressed ? 'light' : 'subtle'}
        color={pressed ? 'blue' : 'gray'}
        size="lg"
        aria-label={label}
        aria-pressed={pressed}
        onClick={onClick}
        disabled={disabled}
      >
        {children}
      </ActionIcon>
    </Tooltip>
  );
}

function ColourMenu({ label, icon, colours, onPick }: { label: string; icon: ReactNode; colours: readonly Colour[]; onPick: (value: string | null) => void }) {
  const { t } = useTranslation();
  return (
    // The grid takes the keyboard back after a pick (onStyle), not this button.
    <Menu position="bottom-start" withinPortal returnFocus={false}>
      <Menu.Target>
        <Tooltip label={label} withArrow openDelay={400}>
          <ActionIcon variant="subtle" color="gray" size="lg" aria-label={label}>
            {icon}
          </ActionIcon>
        </Tooltip>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{label}</Menu.Label>
        {colours.map((colour) => (
          <Menu.Item
            key={colour.label}
            leftSection={
              colour.value ? <ColorSwatch color={colour.value} size={16} aria-hidden /> : <ColorSwatch color="#fff" size={16} withShadow aria-hidden />
            }
            onClick={() => onPick(colour.value)}
          >
            {t(colour.label)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/** Undo, redo and the formatting of the selected cells: bold, italic, colours, alignment, number format. */
export function Toolbar({ cell, canUndo, canRedo, onUndo, onRedo, onStyle }: ToolbarProps) {
  const { t } = useTranslation();
  const format = cell?.format ?? 'general';
  const formats = NUMBER_FORMATS.some((entry) => entry.code === format)
    ? NUMBER_FORMATS.map((entry) => ({ value: entry.code, label: t(entry.label) }))
    : [
        ...NUMBER_FORMATS.map((entry) => ({ value: entry.code, label: t(entry.label) })),
        { value: format, label: t('spreadsheets.formats.custom', { code: format }) },
      ];
  const align = cell?.align;

  return (
    <Group gap={4} wrap="wrap" role="toolbar" aria-label={t('spreadsheets.toolbar.label')}>
      <ToolButton label={t('spreadsheets.toolbar.undo')} onClick={onUndo} disabled={!canUndo}>
        <IconArrowBackUp size={18} aria-hidden />
      </ToolButton>
      <ToolButton label={t('spreadsheets.toolbar.redo')} onClick={onRedo} disabled={!canRedo}>
        <IconArrowForwardUp size={18} aria-hidden />
      </ToolButton>
      <Divider orientation="vertical" mx={4} />
      <ToolButton label={t('spreadsheets.toolbar.bold')} pressed={cell?.bold ?? false} onClick={() => onStyle({ path: 'font.b', value: !cell?.bold })}>
        <IconBold size={18} aria-hidden />
      </ToolButton>
      <ToolButton label={t('spreadsheets.toolbar.italic')} pressed={cell?.italic ?? false} onClick={() => onStyle({ path: 'font.i', value: !cell?.italic })}>
        <IconItalic size={18} aria-hidden />
      </ToolButton>
      <ColourMenu
        label={t('spreadsheets.toolbar.textColour')}
        icon={<IconTextColor size={18} aria-hidden />}
        colours={TEXT_COLOURS}
        onPick={(value) => onStyle({ path: 'font.color', value })}
      />
      <ColourMenu
        label={t('spreadsheets.toolbar.fillColour')}
        icon={<IconBucketDroplet size={18} aria-hidden />}
        colours={FILL_COLOURS}
        onPick={(value) => onStyle({ path: 'fill.color', value })}
      />
      <Divider orientation="vertical" mx={4} />
      {(['left', 'center', 'right'] as const).map((side) => (
        <ToolButton
          key={side}
          label={t(`spreadsheets.toolbar.align.${side}`)}
          pressed={align === side}
          onClick={() => onStyle({ path: 'alignment.horizontal', value: align === side ? 'general' : side })}
        >
          {side === 'left' ? (
            <IconAlignLeft size={18} aria-hidden />
          ) : side === 'center' ? (
            <IconAlignCenter size={18} aria-hidden />
          ) : (
            <IconAlignRight size={18} aria-hidden />
          )}
        </ToolButton>
      ))}
      <Divider orientation="vertical" mx={4} />
      <Select
        aria-label={t('spreadsheets.toolbar.numberFormat')}
        data={formats}
        value={format}
        onChange={(value) => value && onStyle({ path: 'num_fmt', value })}
        allowDeselect={false}
        size="sm"
        w={220}
        comboboxProps={{ withinPortal: true }}
      />
    </Group>
  );
}
