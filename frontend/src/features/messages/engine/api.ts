import {
  createConversationEpoch,
  getConversation,
  getMessagingBackup,
  getMessagingKeys,
  listConversationKeys,
  putMessagingBackup,
  registerMessagingKeys,
  sendMessage,
} from '@/api/generated/messaging/messaging';
import type { MessengerApi } from './messenger';

/** The engine's calls, through the generated API client (bearer token, errors as ApiRequestError). */
export const messengerApi: MessengerApi = {
  registerKeys: (body) => registerMessagingKeys(body),
  getKeys: (userId, version) => getMessagingKeys(userId, version === undefined ? undefined : { version }),
  getBackup: () => getMessagingBackup(),
  putBackup: ({ salt, iterations, iv, ciphertext }) => putMessagingBackup({ salt, iterations, iv, ciphertext }),
  getConversation: (id) => getConversation(id),
  listKeys: (conversationId) => listConversationKeys(conversationId),
  startEpoch: (conversationId, body) => createConversationEpoch(conversationId, body),
  sendMessage: (body) => sendMessage(body),
};
