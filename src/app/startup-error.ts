/** A start-up failure with a sentence for the person starting threadwise (`npm start`, `npm run chat`, `npm run eval`). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
