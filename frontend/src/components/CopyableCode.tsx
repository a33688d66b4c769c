import { Button, Code, CopyButton, Stack } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/**
 * A value in monospace, whole (a token or a URL breaks anywhere), with its copy button: a new
 * token's or webhook's secret, an example request, single sign-on's redirect URI.
 */
export function CopyableCode({ value, copyLabel, copiedLabel, testId }: { value: string; copyLabel: string; copiedLabel: string; testId: string }) {
  return (
    <Stack gap={6} align="flex-start">
      <Code block data-testid={testId} w="100%" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {value}
      </Code>
      <CopyButton value={value} timeout={2000}>
        {({ copied, copy }) => (
          <Button
            size="xs"
            variant={copied ? 'light' : 'default'}
            color={copied ? 'teal' : undefined}
            leftSection={copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
            onClick={copy}
          >
            {copied ? copiedLabel : copyLabel}
          </Button>
        )}
      </CopyButton>
    </Stack>
  );
}
