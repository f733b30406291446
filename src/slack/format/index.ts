export { formatAnswerForSlack, toSlackMessage, type FormatAnswerOptions, type SlackBlock, type SlackMessage } from './format-answer';
export { markdownToMrkdwn } from './markdown-to-mrkdwn';
export { neutraliseMentions, type NeutraliseOptions } from './neutralise-mentions';
export { splitForSlack, splitKeepingHead } from './split-for-slack';
