/** Keyset pagination over prefixed, time-sortable ids: newest first. */
export interface ListParams {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

/** The list envelope of the interface. */
export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
  totalCount: number;
}

export interface DeletedResponse<O extends string> {
  id: string;
  object: O;
  deleted: true;
}
