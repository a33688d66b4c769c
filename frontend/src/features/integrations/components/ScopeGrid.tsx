import { Checkbox, Fieldset, Input, Table, Text } from '@mantine/core';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { SCOPE_AREAS, SCOPE_LEVELS, type ScopeChoice, toggleScope } from '../scopes';

type ScopeGridProps = {
  value: ScopeChoice;
  onChange: (next: ScopeChoice) => void;
  /** Under the legend: what the scopes mean for this kind of token. */
  description: string;
  /** Already translated. */
  error?: string;
};

/**
 * The scopes as a grid: one row per area, a column for read and one for write. Checking write
 * checks read too, and read cannot be unchecked while write is (write includes read).
 */
export function ScopeGrid({ value, onChange, description, error }: ScopeGridProps) {
  const { t } = useTranslation();
  const id = useId();
  const describedBy = error ? `${id}-description ${id}-error` : `${id}-description`;

  return (
    <Fieldset legend={t('apiTokens.scopes.label')} variant="unstyled" aria-describedby={describedBy} data-testid="scope-grid">
      <Text size="sm" c="dimmed" id={`${id}-description`} mb="xs">
        {description}
      </Text>
      <Table withRowBorders={false} verticalSpacing={4} horizontalSpacing="sm" w="auto">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('apiTokens.scopes.area')}</Table.Th>
            {SCOPE_LEVELS.map((level) => (
              <Table.Th key={level} scope="col" ta="center">
                {t(`apiTokens.scopes.${level}`)}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {SCOPE_AREAS.map((area) => {
            const areaName = t(`apiTokens.scopes.areas.${area}`);
            return (
              <Table.Tr key={area}>
                <Table.Th scope="row" fw={400}>
                  {areaName}
                </Table.Th>
                {SCOPE_LEVELS.map((level) => (
                  <Table.Td key={level}>
                    <Checkbox
                      mx="auto"
                      w="fit-content"
                      aria-label={t('apiTokens.scopes.checkbox', { area: areaName, level: t(`apiTokens.scopes.levels.${level}`) })}
                      checked={level === 'read' ? value[area] !== undefined : value[area] === 'write'}
                      // Read is part of write: it stays checked while write is.
                      disabled={level === 'read' && value[area] === 'write'}
                      onChange={(event) => onChange(toggleScope(value, area, level, event.currentTarget.checked))}
                    />
                  </Table.Td>
                ))}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      {error && (
        <Input.Error id={`${id}-error`} mt={4}>
          {error}
        </Input.Error>
      )}
    </Fieldset>
  );
}
