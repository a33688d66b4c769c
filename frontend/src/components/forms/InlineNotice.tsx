import { Alert } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** How an action in a dialog went: a failure (the default) with what was tried and why, or a success. */
export type Notice = { title?: ReactNode; message: ReactNode; success?: boolean };

/**
 * What a dialog's last action came to, said in the dialog, at its form (a toast lies under any
 * open dialog: app/Toasts.tsx); closed by hand or by the next action. A failure is an alert, read
 * out at once; a success a polite status.
 */
export function InlineNotice({ notice, onClose }: { notice: Notice | null; onClose: () => void }) {
  const { t } = useTranslation();
  if (!notice) return null;
  return (
    <Alert
      color={notice.success ? 'teal' : 'red'}
      icon={notice.success ? <IconCircleCheck aria-hidden /> : <IconAlertCircle aria-hidden />}
      title={notice.title}
      role={notice.success ? 'status' : 'alert'}
      withCloseButton
      closeButtonLabel={t('common.close')}
      onClose={onClose}
    >
      {notice.message}
    </Alert>
  );
}
