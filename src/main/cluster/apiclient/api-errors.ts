// What a failed API call says: client-node's ApiException carries the HTTP status
// in `code` (the watch's errors in `statusCode`); a network error carries neither.

/** The HTTP status of a failed API call, undefined when the server never answered. */
export function httpStatusOf(err: unknown): number | undefined {
  const failure = err as { code?: unknown; statusCode?: unknown } | null;
  const code = failure?.code ?? failure?.statusCode;
  return typeof code === 'number' ? code : undefined;
}
