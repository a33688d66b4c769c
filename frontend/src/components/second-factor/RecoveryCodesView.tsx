import { Alert, Button, Checkbox, CopyButton, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy, IconFileDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

type RecoveryCodesViewProps = {
  codes: readonly string[];
  /** The button that leaves once the person said they kept the codes ("Continue", "Done"). */
  doneLabel: string;
  onDone: () => void;
  pending?: boolean;
};

/** Saves the codes as a text file, made here (nothing is fetched). */
function downloadCodes(codes: readonly string[], heading: string) {
  const text = `${heading}\n\n${codes.join('\n')}\n`;
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  link.download = 'recovery-codes.txt';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/**
 * Recovery codes, shown this once (the server keeps only their hashes): to copy or download,
 * and a "kept them" check before leaving.
 */
export function RecoveryCodesView({ codes, doneLabel, onDone, pending = false }: RecoveryCodesViewProps) {
  const { t } = useTranslation();
  const [kept, setKept] = useState(false);
  return (
    <Stack gap="md">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle aria-hidden />} title={t('twoStep.codes.warningTitle')}>
        {t('twoStep.codes.warning')}
      </Alert>
      <SimpleGrid
        component="ul"
        cols={2}
        spacing="xs"
        verticalSpacing={4}
        m={0}
        p="sm"
        data-testid="recovery-codes"
        aria-label={t('twoStep.codes.listLabel')}
        style={{ listStyle: 'none', border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-sm)' }}
      >
        {codes.map((code) => (
          <Text component="li" key={code} ff="monospace" size="sm" data-testid="recovery-code">
            {code}
          </Text>
        ))}
      </SimpleGrid>
      <Group gap="sm" wrap="wrap">
        <CopyButton value={codes.join('\n')} timeout={2000}>
          {({ copied, copy }) => (
            <Button
              size="xs"
              variant={copied ? 'light' : 'default'}
              color={copied ? 'teal' : undefined}
              leftSection={copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
              onClick={copy}
            >
              {copied ? t('twoStep.codes.copied') : t('twoStep.codes.copy')}
            </Button>
          )}
        </CopyButton>
        <Button
          size="xs"
          variant="default"
          leftSection={<IconFileDownload size={14} aria-hidden />}
          onClick={() => downloadCodes(codes, t('twoStep.codes.fileHeading', { product: t('app.name') }))}
        >
          {t('twoStep.codes.download')}
        </Button>
      </Group>
      <Checkbox checked={kept} onChange={(event) => setKept(event.currentTarget.checked)} label={t('twoStep.codes.kept')} />
      <Group justify="flex-end">
        <Button onClick={onDone} disabled={!kept} loading={pending}>
          {doneLabel}
        </Button>
      </Group>
    </Stack>
  );
}
