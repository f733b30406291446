export { formatAnswerForSlack, type FormatAnswerOptions, type SlackBlock, type SlackMessage } from './format-answer';
export { markdownToMrkdwn } from './markdown-to-mrkdwn';
export { neutraliseMentions, type NeutraliseOptions } from './neutralise-mentions';
export { splitForSlack } from './split-for-slack';
