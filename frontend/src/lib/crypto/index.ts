/** The messenger's cryptography, in the browser only (docs/messenger-crypto.md). */
export { fromBase64, toBase64 } from './encoding';
export { generateKeys, importPrivateKeys, importPublicKeys, publicKeysOf, type ExportedKeys, type KeyPairs, type NewKeys, type PublicKeys } from './keys';
export { newEpochKey, importEpochKey, unwrapEpochKey, wrapEpochKey, type EpochRecipient } from './epoch';
export { MessageError, openMessage, sealMessage, type MessageContent, type MessageContext, type SealedMessage } from './message';
export {
  BACKUP_ITERATIONS,
  WrongPassphraseError,
  deriveBackupKey,
  newBackupSalt,
  openBackup,
  sealBackup,
  type BackupContents,
  type SealedBackup,
} from './backup';
export { formatSafetyNumber, keyFingerprint, safetyNumber } from './safety';
export * as keystore from './keystore';
