import type { DeliveryRow } from '../../store/delivery-store';

/** A delivery as the journal holds it: the row slack_deliveries will hold. */
export type JournalledDelivery = DeliveryRow;

export interface JournalSegment {
  readonly file: string;
}

export interface DeliveryJournalFile {
  write(delivery: JournalledDelivery): Promise<JournalSegment>;
  moved(segment: JournalSegment): void;
  close(): void;
}

export declare function openDeliveryJournalFile(dir: string): DeliveryJournalFile;

export declare function readLeftoverDeliveries(dir: string): { deliveries: JournalledDelivery[]; files: string[] };

export declare function removeLeftoverFiles(files: string[]): void;
