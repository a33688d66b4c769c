import {
  createConversationEpoch,
  getConversation,
  getMessagingKeys,
  getMessagingSetup,
  listConversationKeys,
  putMessagingBackup,
  registerMessagingKeys,
  sendMessage,
} from '@/api/generated/messaging/messaging';
import { ApiRequestError } from '@/api/mutator';
import type { MessengerApi } from './messenger';

/** An absence the engine expects (no keys or backup of one's own yet), said by the server without
 * a 404 on the wire, where the browser would log it as an error; the engine still reads a 404. */
const notYet = () => new ApiRequestError(404, { code: 'not_found', message: 'Not set up yet' });

/** The engine's calls for `me`, through the generated API client (bearer token, errors as
 * ApiRequestError). One's own newest keys and backup come from the setup call. */
export const messengerApiFor = (me: string): MessengerApi => ({
  registerKeys: (body) => registerMessagingKeys(body),
  getKeys: async (userId, version) => {
    if (userId !== me || version !== undefined) return getMessagingKeys(userId, version === undefined ? undefined : { version });
    const { keys } = await getMessagingSetup();
    if (!keys) throw notYet();
    return keys;
  },
  getBackup: async () => {
    const { backup } = await getMessagingSetup();
    if (!backup) throw notYet();
    return backup;
  },
  putBackup: ({ salt, iterations, iv, ciphertext }) => putMessagingBackup({ salt, iterations, iv, ciphertext }),
  getConversation: (id) => getConversation(id),
  listKeys: (conversationId) => listConversationKeys(conversationId),
  startEpoch: (conversationId, body) => createConversationEpoch(conversationId, body),
  sendMessage: (body) => sendMessage(body),
});
