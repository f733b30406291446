/** A start-up failure with a sentence for the person starting the bot: main.ts prints it as one line and exits. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
