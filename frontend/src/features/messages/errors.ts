import type { TFunction } from 'i18next';
import { WrongPassphraseError } from '@/lib/crypto';
import { errorMessage } from '@/lib/errors';
import { BackupChangedError, NoKeysError, OutdatedKeysError, conflictReason } from './engine/messenger';

/** Why something the messenger tried failed, in the user's words. */
export function messengerError(error: unknown, t: TFunction): string {
  if (error instanceof NoKeysError) {
    return error.member ? t('messenger.errors.noKeysNamed', { name: error.member.fullName }) : t('messenger.errors.noKeys');
  }
  if (error instanceof OutdatedKeysError) return t('messenger.errors.outdatedKeys');
  if (error instanceof WrongPassphraseError) return t('messenger.errors.wrongPassphrase');
  if (error instanceof BackupChangedError) return t('messenger.errors.backupChanged');
  switch (conflictReason(error)) {
    case 'no_keys':
      return t('messenger.errors.noKeys');
    case 'stale_epoch':
    case 'rekey_required':
      return t('messenger.errors.busy');
    case 'direct_conversation':
      return t('messenger.errors.direct');
    case 'too_many_keys':
      return t('messenger.errors.tooManyKeys');
  }
  return errorMessage(error, t);
}
