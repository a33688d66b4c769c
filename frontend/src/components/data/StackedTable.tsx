import { Table, type TableProps } from '@mantine/core';
import classes from './StackedTable.module.css';

/**
 * A data table that stays whole on a small screen: below 48rem of its own width it becomes a
 * list of cards (StackedTable.module.css) instead of scrolling sideways with its actions out of
 * sight. Mark its cells: `data-title` on the one that names the row (shown first, without a
 * label), `data-label={column name}` on the others, `data-actions` on the row's actions (kept
 * in the card's corner).
 */
export function StackedTable({ className, ...props }: TableProps) {
  return (
    <div className={classes.container}>
      <Table {...props} className={className ? `${classes.table} ${className}` : classes.table} />
    </div>
  );
}
