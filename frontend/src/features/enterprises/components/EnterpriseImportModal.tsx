import { Alert, Box, Button, Checkbox, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconCircleCheck, IconFileImport } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useGetEnterpriseImport, useImportEnterprise } from '@/api/generated/enterprises/enterprises';
import type { ImportStatus } from '@/api/generated/model';
import { type Notice, InlineNotice } from '@/components/forms/InlineNotice';
import { isApiRequestError } from '@/api/mutator';
import { errorMessage } from '@/lib/errors';
import { href } from '@/lib/paths';
import { invalidate } from '@/lib/query-invalidation';

// Type-only: the generated enum objects would land in the sign-in page's bundle.
const UNDER_WAY: readonly ImportStatus[] = ['queued', 'running'];
/** What the archive holds that an import leaves out (`leftOut[].what`). */
const LEFT_OUT = ['messenger', 'webhooks', 'singleSignOn', 'spreadsheet'] as const;
/** The counts an import reports, in the order shown. */
const COUNTS = ['people', 'departments', 'reports', 'spreadsheets', 'auditEvents'] as const;

type EnterpriseImportModalProps = { opened: boolean; onClose: () => void };

/**
 * Re-creates an enterprise from the archive its export wrote (`POST /enterprises/imports`): the
 * file chosen, the upload, the import followed while it runs (percent and stage), then what was
 * made and what was left out. Closing the dialog does not stop an import; opening it again shows
 * where it is.
 */
export function EnterpriseImportModal({ opened, onClose }: EnterpriseImportModalProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [invite, setInvite] = useState(true);
  const [fileError, setFileError] = useState<string | null>(null);
  const [failure, setFailure] = useState<Notice | null>(null);
  const [importId, setImportId] = useState<string | null>(null);
  // A new file picker after a reset (a file input cannot be emptied by its value).
  const [picker, setPicker] = useState(0);
  const start = useImportEnterprise();
  const job = useGetEnterpriseImport(importId ?? '', {
    query: {
      enabled: importId !== null,
      // Followed every second while it runs.
      refetchInterval: (query) => (query.state.data && UNDER_WAY.includes(query.state.data.status) ? 1000 : false),
    },
  });
  const current = importId ? job.data : undefined;
  const ready = current?.status === 'ready';

  // A new enterprise: the lists that show enterprises and people change.
  useEffect(() => {
    if (ready) void invalidate.users(client);
  }, [ready, client]);

  const reset = () => {
    setFile(null);
    setPicker((n) => n + 1);
    setFileError(null);
    setFailure(null);
    setImportId(null);
    start.reset();
  };

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setFailure(null);
    if (!file) {
      setFileError(t('enterprises.imports.fileRequired'));
      return;
    }
    setFileError(null);
    start.mutate(
      { data: { archive: file, invite } },
      {
        onSuccess: (started) => setImportId(started.id),
        onError: (error) => {
          if (isApiRequestError(error) && error.status === 400 && error.fields.archive) {
            setFileError(t('enterprises.imports.refused'));
            setFailure({ title: t('enterprises.imports.refusedTitle'), message: <Details detail={error.serverMessage ?? ''} /> });
          } else if (isApiRequestError(error) && error.status === 409 && error.fields.name) {
            setFailure({ title: t('enterprises.imports.failed'), message: t('enterprises.imports.nameTaken') });
          } else if (isApiRequestError(error) && error.status === 409) {
            setFailure({ title: t('enterprises.imports.failed'), message: t('enterprises.imports.emailTaken') });
          } else if (isApiRequestError(error) && error.status === 413) {
            setFileError(t('enterprises.imports.tooLarge'));
          } else {
            setFailure({ title: t('enterprises.imports.failed'), message: errorMessage(error, t) });
          }
        },
      },
    );
  };

  const body = () => {
    if (importId && !current) {
      return job.isError ? (
        <InlineNotice notice={{ title: t('enterprises.imports.lost'), message: errorMessage(job.error, t) }} onClose={reset} />
      ) : (
        <Text c="dimmed">{t('app.loading')}</Text>
      );
    }
    if (current && UNDER_WAY.includes(current.status)) {
      return (
        <Stack gap="xs">
          <Text fw={600}>{t('enterprises.imports.running', { name: current.enterpriseName })}</Text>
          {/* The browser's own progress bar: Mantine's would be one more chunk in the sign-in page's map. */}
          <progress value={current.progress} max={100} aria-label={t('enterprises.imports.progressLabel')} style={{ width: '100%' }} />
          <Text size="sm" c="dimmed" role="status">
            {t('enterprises.imports.progress', { percent: current.progress, stage: t(`enterprises.imports.stage.${current.stage}`) })}
          </Text>
          <Text size="sm">{t('enterprises.imports.keepsRunning')}</Text>
        </Stack>
      );
    }
    if (current && ready && current.result && current.enterpriseId) {
      const { result } = current;
      return (
        <Stack gap="sm" data-testid="enterprise-import-result">
          <Alert color="teal" icon={<IconCircleCheck aria-hidden />} title={t('enterprises.imports.done', { name: current.enterpriseName })} role="status">
            <Text size="sm">
              {result.idsKept ? t('enterprises.imports.idsKept') : t('enterprises.imports.idsReplaced')}{' '}
              {result.invited > 0 ? t('enterprises.imports.invited', { count: result.invited }) : t('enterprises.imports.notInvited')}
            </Text>
          </Alert>
          <Box component="ul" m={0} pl="lg" fz="sm" aria-label={t('enterprises.imports.countsLabel')}>
            {COUNTS.map((what) => (
              <li key={what}>{t(`enterprises.imports.counts.${what}`, { count: result.counts[what] ?? 0 })}</li>
            ))}
          </Box>
          <Text size="sm" fw={600}>
            {t('enterprises.imports.leftOutTitle')}
          </Text>
          <Box component="ul" m={0} pl="lg" fz="sm">
            {result.leftOut.map((left, index) => (
              <li key={`${left.what}-${index}`}>
                {LEFT_OUT.includes(left.what as (typeof LEFT_OUT)[number])
                  ? t(`enterprises.imports.leftOut.${left.what as (typeof LEFT_OUT)[number]}`)
                  : left.why}
              </li>
            ))}
          </Box>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={reset}>
              {t('enterprises.imports.another')}
            </Button>
            <Button component={Link} to={href('adminEnterprise', { id: current.enterpriseId })} onClick={onClose}>
              {t('enterprises.imports.open')}
            </Button>
          </Group>
        </Stack>
      );
    }
    if (current?.status === 'failed') {
      return (
        <Stack gap="sm">
          <Alert color="red" title={t('enterprises.imports.failedTitle', { name: current.enterpriseName })} role="alert">
            <Text size="sm">{t('enterprises.imports.nothingKept')}</Text>
            {current.error ? <Details detail={current.error} /> : null}
          </Alert>
          <Group justify="flex-end">
            <Button onClick={reset}>{t('enterprises.imports.tryAgain')}</Button>
          </Group>
        </Stack>
      );
    }
    return (
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">{t('enterprises.imports.description')}</Text>
          <InlineNotice notice={failure} onClose={() => setFailure(null)} />
          {/* The browser's own file picker (a TextInput of type file: its label, hint and error
              wired as every field's are). */}
          <TextInput
            key={picker}
            type="file"
            label={t('enterprises.imports.file')}
            description={t('enterprises.imports.fileHint')}
            accept=".zip,application/zip"
            leftSection={<IconFileImport size={18} aria-hidden />}
            onChange={(event) => {
              setFile(event.currentTarget.files?.[0] ?? null);
              setFileError(null);
            }}
            error={fileError}
            required
            data-autofocus
          />
          <Checkbox
            label={t('enterprises.imports.invite')}
            description={t('enterprises.imports.inviteHint')}
            checked={invite}
            onChange={(event) => setInvite(event.currentTarget.checked)}
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={start.isPending}>
              {t('enterprises.imports.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    );
  };

  return (
    <Modal opened={opened} onClose={onClose} title={t('enterprises.imports.title')} size="lg" keepMounted>
      {body()}
    </Modal>
  );
}

/** The server's own words about an archive (in English), under a heading in the reader's language. */
function Details({ detail }: { detail: string }) {
  const { t } = useTranslation();
  return (
    <Text size="sm" c="dimmed" mt={4}>
      {t('enterprises.imports.details')} <span lang="en">{detail}</span>
    </Text>
  );
}
