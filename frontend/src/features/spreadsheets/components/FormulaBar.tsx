import { Group, Text, TextInput } from '@mantine/core';
import { IconMathFunction } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

type FormulaBarProps = {
  /** `B3`, or `A1:C4` for a range. */
  address: string;
  /** What the active cell holds as typed (a formula, or a value). */
  input: string;
  editable: boolean;
  /** Enter: the new input of the active cell. */
  onCommit: (input: string) => void;
  /** Enter or Escape: back to the grid. */
  onDone: () => void;
};

/**
 * The name box and the formula bar: where the active cell is, what it holds, and a place to
 * type a long formula. Enter writes it to the cell, Escape gives up.
 */
export function FormulaBar(props: FormulaBarProps) {
  // A new cell (or a new value in it) starts a new draft.
  return <FormulaInput key={`${props.address}\u0000${props.input}`} {...props} />;
}

function FormulaInput({ address, input, editable, onCommit, onDone }: FormulaBarProps) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState(input);
  // Enter and Escape settle the draft before the focus leaves: the blur that follows does not.
  const settled = useRef(false);
  return (
    <Group gap="xs" wrap="nowrap" align="center">
      <Text
        component="output"
        size="sm"
        ff="monospace"
        fw={600}
        miw={80}
        px="xs"
        py={6}
        ta="center"
        bd="1px solid var(--mantine-color-gray-4)"
        style={{ borderRadius: 'var(--mantine-radius-sm)' }}
        aria-label={t('spreadsheets.formulaBar.address')}
        data-testid="cell-address"
      >
        {address}
      </Text>
      <TextInput
        flex={1}
        size="sm"
        ff="monospace"
        leftSection={<IconMathFunction size={16} aria-hidden />}
        aria-label={t('spreadsheets.formulaBar.label')}
        value={draft}
        readOnly={!editable}
        onChange={(event) => setDraft(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && editable) {
            event.preventDefault();
            settled.current = true;
            if (draft !== input) onCommit(draft);
            onDone();
          } else if (event.key === 'Escape') {
            event.preventDefault();
            settled.current = true;
            setDraft(input);
            onDone();
          }
        }}
        onFocus={() => {
          settled.current = false;
        }}
        onBlur={() => {
          if (!settled.current && editable && draft !== input) onCommit(draft);
          settled.current = true;
        }}
        data-testid="formula-bar"
      />
    </Group>
  );
}
