import { SculptorError } from '../errors/sculptor-error.ts';
import { type BackendClient, createBackendClient } from '../http/backend-client.ts';
import type { FetchText } from '../soap/read-description.ts';

/** One remote document's deadline at load (a description and its imports each get their own). */
const FETCH_TIMEOUT_MS = 10_000;

/**
 * Runs a load that may read `http(s)://` documents (a WSDL named by URL, or its imports) through
 * Sculptor's own HTTP client: the egress policy (no loopback, private or metadata address unless
 * the backend is `allowPrivate`), no redirects, the answer size caps and a deadline, as for any
 * backend call. The client is made on the first remote read and closed when the load ends.
 */
export async function remoteDescriptions<T>(
  options: { allowPrivate: boolean },
  load: (fetchText: FetchText) => Promise<T>,
): Promise<T> {
  let client: BackendClient | undefined;
  const fetchText: FetchText = async (url) => {
    client ??= createBackendClient();
    let response;
    try {
      response = await client.send(
        { method: 'GET', url, headers: { accept: 'application/wsdl+xml, text/xml, application/xml' } },
        { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), allowPrivate: options.allowPrivate },
      );
    } catch (error) {
      const reason = error instanceof SculptorError ? `${error.code}: ${error.message}` : String(error);
      throw new SculptorError('load.wsdl', `Cannot read ${url}: ${reason}`, { cause: error });
    }
    if (response.status !== 200 || typeof response.body !== 'string') {
      throw new SculptorError(
        'load.wsdl',
        `Cannot read ${url}: it answered HTTP ${response.status} ${response.contentType || 'without a content type'}, not an XML document.`,
      );
    }
    return response.body;
  };
  try {
    return await load(fetchText);
  } finally {
    await client?.close();
  }
}
