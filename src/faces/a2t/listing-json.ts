/**
 * The body of a paged listing (A2T §6.4), `{"items":[…],"paging":{…}}`, built
 * from signatures already serialized once per catalog (`signatureJson`).
 * The text is exactly `JSON.stringify({ items, paging })` of the same values
 * (test/faces/a2t/listing-json.test.ts compares them).
 */
export interface Paging {
  pageLimit: number;
  next: string | null;
}

export function listingJson(items: readonly string[], paging: Paging): string {
  // Key order as the object literal `{ pageLimit, next }` serializes.
  const tail = JSON.stringify({ pageLimit: paging.pageLimit, next: paging.next });
  return `{"items":[${items.join(',')}],"paging":${tail}}`;
}
