import { ActionIcon, Button, Group, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { IconColumnInsertRight, IconRowInsertBottom, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { type TableDraft, addColumn, addRow, removeColumn, removeRow, renameColumn, setCell } from '@/lib/report-table';

type Props = {
  value: TableDraft;
  onChange: (next: TableDraft) => void;
  /** Indexes of the columns whose name is missing (shown as errors). */
  missingNames?: number[];
  /** Cells (`row:column`) holding text in a number column (shown as errors). */
  notNumbers?: string[];
};

/** A small grid editor: named columns, rows of text cells (numbers are recognised on save; a
 * column after the first that holds a number takes only numbers). */
export function TableEditor({ value, onChange, missingNames = [], notNumbers = [] }: Props) {
  const { t } = useTranslation();
  const columnLabel = (index: number) => value.columns[index]?.trim() || t('reports.table.column', { n: index + 1 });

  return (
    <Stack gap="sm">
      {value.columns.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('reports.table.empty')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={120 * value.columns.length + 60}>
          <Table withTableBorder verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                {value.columns.map((name, c) => (
                  <Table.Th key={c}>
                    <Group gap={4} wrap="nowrap">
                      <TextInput
                        size="xs"
                        aria-label={t('reports.table.columnName', { n: c + 1 })}
                        placeholder={t('reports.table.column', { n: c + 1 })}
                        value={name}
                        error={missingNames.includes(c) ? t('validation.required') : undefined}
                        onChange={(e) => onChange(renameColumn(value, c, e.currentTarget.value))}
                        style={{ flex: 1 }}
                      />
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={t('reports.table.removeColumn', { name: columnLabel(c) })}
                        onClick={() => onChange(removeColumn(value, c))}
                      >
                        <IconTrash size={14} aria-hidden />
                      </ActionIcon>
                    </Group>
                  </Table.Th>
                ))}
                <Table.Th w={40}>
                  <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {value.rows.map((row, r) => (
                <Table.Tr key={r}>
                  {value.columns.map((_, c) => (
                    <Table.Td key={c}>
                      <TextInput
                        size="xs"
                        aria-label={t('reports.table.cell', { row: r + 1, column: columnLabel(c) })}
                        value={row[c] ?? ''}
                        error={notNumbers.includes(`${r}:${c}`) ? t('reports.table.notANumber') : undefined}
                        onChange={(e) => onChange(setCell(value, r, c, e.currentTarget.value))}
                      />
                    </Table.Td>
                  ))}
                  <Table.Td>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={t('reports.table.removeRow', { n: r + 1 })}
                      onClick={() => onChange(removeRow(value, r))}
                    >
                      <IconTrash size={14} aria-hidden />
                    </ActionIcon>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group gap="sm">
        <Button size="xs" variant="light" leftSection={<IconColumnInsertRight size={16} aria-hidden />} onClick={() => onChange(addColumn(value))}>
          {t('reports.table.addColumn')}
        </Button>
        <Button
          size="xs"
          variant="light"
          leftSection={<IconRowInsertBottom size={16} aria-hidden />}
          onClick={() => onChange(addRow(value))}
          disabled={value.columns.length === 0}
        >
          {t('reports.table.addRow')}
        </Button>
      </Group>
    </Stack>
  );
}
