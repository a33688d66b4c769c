import { Group, Table, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp } from '@tabler/icons-react';
import type { ReactNode } from 'react';

/**
 * A column header that sorts its table: a button (so the keyboard reaches it) naming the column,
 * an arrow on the column in force, and `aria-sort` saying which way. `onSort` gets the column's
 * next direction: the other way when it is the column in force, else `firstDescending`.
 */
export function SortableTh({
  children,
  active,
  descending,
  firstDescending = true,
  onSort,
}: {
  children: ReactNode;
  active: boolean;
  descending: boolean;
  firstDescending?: boolean;
  onSort: (descending: boolean) => void;
}) {
  return (
    <Table.Th aria-sort={active ? (descending ? 'descending' : 'ascending') : 'none'}>
      <UnstyledButton fw={600} fz="sm" onClick={() => onSort(active ? !descending : firstDescending)}>
        <Group gap={4} wrap="nowrap">
          {children}
          {active ? descending ? <IconArrowDown size={14} aria-hidden /> : <IconArrowUp size={14} aria-hidden /> : null}
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}
