import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** Why a form's last submission failed: its title (what was tried) and the reason. */
export type Failure = { title: ReactNode; message: ReactNode };

/**
 * A form's failure, said at the form (a dialog's toast would sit over or under the dialog, away
 * from what the person is looking at); closed by hand or by the next submission.
 */
export function FormFailure({ failure, onClose }: { failure: Failure | null; onClose: () => void }) {
  const { t } = useTranslation();
  if (!failure) return null;
  return (
    <Alert
      color="red"
      icon={<IconAlertCircle aria-hidden />}
      title={failure.title}
      role="alert"
      withCloseButton
      closeButtonLabel={t('common.close')}
      onClose={onClose}
    >
      {failure.message}
    </Alert>
  );
}
