/**
 * How soon V8 recompiles a WebAssembly function with its optimising compiler, while threadwise starts. The embedded
 * database is PostgreSQL in 9 MB of WebAssembly: by V8's default budget, the functions a start runs once (opening
 * the database, reading the catalog) crossed it and were recompiled on V8's helper threads — about a second of CPU
 * per start on a two-core machine (bench: start.reopened_cpu_ms), competing with the start itself. During the start
 * the budget is 25 times larger; once it is over, the flag is set back to V8's default. Raised for a whole bench run
 * instead, PDF extraction took about 10 % more CPU (PDFium's hot loops optimised later): that is the cost the reset
 * is there to avoid.
 *
 * Called first thing at each entry point (src/main.ts, src/chat.ts, evals/run.ts), before any WebAssembly is
 * compiled. V8's flags belong to the process: worker threads share them.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's default (a rough count of bytes of WebAssembly executed before a function is optimised). */
const DEFAULT_TIERING_BUDGET = 1_800_000;
const START_TIERING_BUDGET = 25 * DEFAULT_TIERING_BUDGET;

/** Raises the budget until the returned function is called (once the start is over). */
export function deferWasmOptimisationDuringStart(): () => void {
  setFlagsFromString(`--wasm-tiering-budget=${START_TIERING_BUDGET}`);
  return () => setFlagsFromString(`--wasm-tiering-budget=${DEFAULT_TIERING_BUDGET}`);
}
