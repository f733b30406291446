export { formatAnswerForSlack, toSafeMarkdown, toSlackMessage, type SlackMessage } from './format-answer';
export { markdownToMrkdwn } from './markdown-to-mrkdwn';
export { neutraliseMentions } from './neutralise-mentions';
export { splitForSlack, splitKeepingHead } from './split-for-slack';
