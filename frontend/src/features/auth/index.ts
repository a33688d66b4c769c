export { useSignOut, useVerifyRestoredSession } from './session-hooks';
