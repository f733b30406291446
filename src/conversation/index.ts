export { buildThreadConversation, userIdsToResolve, isFromBot, compareTs, type BotIdentity, type ConversationInput } from './build-thread-conversation';
export { QUESTION_EVENT, STATUS_EVENT, type SlackMessage } from './slack-message';
export type { ConversationTurn, ThreadConversation, TurnFileRef } from '../core/conversation';
