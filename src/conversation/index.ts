export { buildThreadConversation, userIdsToResolve, isFromBot, compareTs, type BotIdentity } from './build-thread-conversation';
export { QUESTION_EVENT, STATUS_EVENT, type SlackMessage } from './slack-message';
