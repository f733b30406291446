/**
 * Deliveries on disk, for the embedded database: the receiver's thread appends each Events API delivery to a file
 * in DATA_DIR and flushes it (fdatasync) before Slack gets its 200, then moves it into slack_deliveries. Recording
 * straight into PGlite put every 200 behind whatever transaction the main thread had open on PGlite's one
 * connection (bench: load.ack_p99_ms 103–117 ms on an idle two-core machine, p50 8 ms). An append and a flush wait
 * for nothing but the disk: a fraction of a millisecond when it is quiet, 5–17 ms while the bench's load writes to it
 * too (load.ack_p99_ms 33–52 ms, p50 3–5 ms).
 *
 * Both are made on the receiver's own thread, synchronously. Through fs's callbacks they went to libuv's thread
 * pool, which the app runs at background priority (thread-priority.mjs) beside the extraction workers and V8's
 * helpers; under the soak those helpers took ~70 s of CPU in 12 minutes at that priority, and each acknowledgement
 * waited for a pool thread to be scheduled twice (the append, then the flush). The receiver thread exists to wait
 * for the disk; blocking it for one flush holds back only the requests that arrive meanwhile, which the kernel
 * queues and the next flush takes together.
 *
 * The files are segments: a new one is started once the current one passed SEGMENT_BYTES, and a segment is deleted
 * once every delivery written to it is in the database. What a stopped process leaves (deliveries it acknowledged
 * and did not get into the database) is read back at the next start (readLeftoverDeliveries) and moved into
 * slack_deliveries first, from where the usual replay answers them. A delivery moved twice (the process died after
 * the row was written and before its segment was deleted) is replayed and answered as the duplicate it is by the
 * event-id dedupe.
 *
 * Plain JavaScript: the receiver's thread loads it without tsx. Types in delivery-journal-file.d.mts.
 */
import { closeSync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

/** Past this a new segment is started, so that deleting what is done never waits for a quiet moment. */
const SEGMENT_BYTES = 256 * 1024;
const SUFFIX = '.deliveries.ndjson';

/**
 * The journal of one receiver thread. `write` resolves once the delivery is on disk and returns its segment;
 * `moved(segment)` says one delivery of it is in the database. Writes that arrive while one flush runs share the
 * next flush (group commit).
 */
export function openDeliveryJournalFile(dir) {
  mkdirSync(dir, { recursive: true });
  let current;
  let sequence = 0;
  let queued = [];
  let flushing = false;

  const startSegment = () => {
    sequence += 1;
    const file = path.join(dir, `${Date.now()}-${process.pid}-${threadId}-${sequence}${SUFFIX}`);
    return { file, fd: openSync(file, 'a', 0o600), bytes: 0, outstanding: 0, sealed: false };
  };

  const deleteIfDone = (segment) => {
    if (!segment.sealed || segment.outstanding > 0) return;
    try {
      unlinkSync(segment.file);
    } catch {
      // Gone already, or the disk refuses: read back at the next start, and replayed as a duplicate at worst.
    }
  };

  const seal = (segment) => {
    segment.sealed = true;
    closeSync(segment.fd);
    deleteIfDone(segment);
  };

  // Flushed once the requests read in this turn of the event loop are queued (setImmediate runs after the turn's
  // I/O): they share one flush, and so do those the kernel holds back while it runs (group commit). A burst's first
  // acknowledgement waits for one flush, not for the whole burst to be read.
  const flush = () => {
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      let segment;
      try {
        segment = current ??= startSegment();
        const text = Buffer.from(batch.map((entry) => entry.line).join(''));
        writeAll(segment.fd, text);
        fdatasyncSync(segment.fd);
        segment.bytes += text.length;
      } catch (error) {
        // A write cut short (disk full) may have left a torn line: later ones go to a new segment, not after it.
        if (segment && current === segment) {
          current = undefined;
          try {
            seal(segment);
          } catch {
            // closing failed too: the descriptor is dropped with the thread
          }
        }
        for (const entry of batch) entry.reject(error);
        continue;
      }
      segment.outstanding += batch.length;
      if (segment.bytes >= SEGMENT_BYTES) {
        current = undefined;
        seal(segment);
      }
      for (const entry of batch) entry.resolve(segment);
    }
    flushing = false;
  };

  return {
    /** `delivery`: { id, receivedBy, body, retryNum?, retryReason? }, the row slack_deliveries will hold. */
    write(delivery) {
      return new Promise((resolve, reject) => {
        queued.push({ line: `${JSON.stringify(delivery)}\n`, resolve, reject });
        if (!flushing) {
          flushing = true;
          setImmediate(flush);
        }
      });
    },
    moved(segment) {
      segment.outstanding -= 1;
      deleteIfDone(segment);
    },
    /** Closes the current segment; it is deleted if everything in it was moved, else left for the next start. */
    close() {
      if (current) seal(current);
      current = undefined;
    },
  };
}

/** Writes all of `buffer` at the file's end (a short write is continued, not lost). */
function writeAll(fd, buffer) {
  for (let offset = 0; offset < buffer.length; ) offset += writeSync(fd, buffer, offset, buffer.length - offset, null);
}

/**
 * What stopped processes left in `dir`: their deliveries (rows for slack_deliveries) and the segment files they came
 * from, to delete once the rows are in the database. A line cut short by the crash (the 200 was never sent for it:
 * the flush had not finished) is skipped.
 */
export function readLeftoverDeliveries(dir) {
  let names;
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(SUFFIX)).sort();
  } catch (error) {
    if (error?.code === 'ENOENT') return { deliveries: [], files: [] };
    throw error;
  }
  const deliveries = [];
  const files = names.map((name) => path.join(dir, name));
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const delivery = JSON.parse(line);
        if (typeof delivery?.id === 'string' && delivery.body && typeof delivery.body === 'object') deliveries.push(delivery);
      } catch {
        // the torn last line of a flush the crash interrupted
      }
    }
  }
  return { deliveries, files };
}

/** Deletes segment files whose deliveries are in the database now. */
export function removeLeftoverFiles(files) {
  for (const file of files) {
    try {
      unlinkSync(file);
    } catch (error) {
      if (error?.code !== 'ENOENT') throw error;
    }
  }
}
