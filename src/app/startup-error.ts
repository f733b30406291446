import { ThreadwiseError, type ThreadwiseErrorOptions } from '../core/errors';

/** A start-up failure with a sentence for the person starting threadwise (`npm start`, `npm run chat`, `npm run eval`). */
export class StartupError extends ThreadwiseError<'startup_failed'> {
  override readonly name = 'StartupError';
  constructor(message: string, options?: ThreadwiseErrorOptions) {
    super('startup_failed', message, options);
  }
}
