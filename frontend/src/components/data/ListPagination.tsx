import { Group, Pagination, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFormat } from '@/lib/format';

type ListPaginationProps = {
  page: number;
  pageSize: number;
  total: number;
  onChange: (page: number) => void;
  /** What the list is about, for screen readers ("Enterprise pages"). */
  label: string;
};

/** "Showing 21–40 of 57" and the page buttons (hidden when everything fits on one page). */
export function ListPagination({ page, pageSize, total, onChange, label }: ListPaginationProps) {
  const { t } = useTranslation();
  const { number } = useFormat();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (total === 0) return null;
  const from = (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);

  return (
    <Group justify="space-between" gap="sm" wrap="wrap">
      <Text size="sm" c="dimmed" aria-live="polite">
        {t('common.showing', { from: number(from), to: number(to), total: number(total) })}
      </Text>
      {pages > 1 && (
        <nav aria-label={label}>
          <Pagination
            total={pages}
            value={Math.min(page, pages)}
            onChange={onChange}
            getItemProps={(item) => ({ 'aria-label': t('common.pagination.page', { page: item }) })}
            getControlProps={(control) => ({ 'aria-label': t(`common.pagination.${control}`) })}
          />
        </nav>
      )}
    </Group>
  );
}
