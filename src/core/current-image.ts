/**
 * An image shown to the model with the current turn. files/ makes them (a screenshot posted with the question);
 * context/ counts and places them in the request.
 */

export type ImageDetail = 'low' | 'high' | 'auto';

/** An image attached to the current turn, already downloaded and within the byte cap. */
export interface CurrentImage {
  fileId: string;
  name: string;
  /** data: URL; the model cannot fetch Slack URLs itself. */
  dataUrl: string;
  /** Pixel size when known; otherwise read from the data URL's header, else the worst case is counted. */
  width?: number;
  height?: number;
  detail: ImageDetail;
}
