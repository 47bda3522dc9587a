import type { InvocationReport } from '../../src/engine/invoke-tool.ts';
import { rawClient } from '../hardening/raw-http.ts';
import type { FaultBackend } from '../http/fault-backend.ts';
import { until } from './until.ts';

/**
 * A caller hanging up mid-call: `head` (the request line and headers, without Content-Length)
 * and `body` are sent over a raw socket, which is destroyed as soon as the fault backend sees the
 * call. Returns the invocation's report and how long the gateway held the backend call open after
 * that — a call it let go of closes its socket at once, one it waited out lasts the backend's delay.
 */
export async function hangUpMidCall(
  gateway: { url: string; reports: InvocationReport[] },
  fault: FaultBackend,
  head: string,
  body: string,
): Promise<{ report: InvocationReport; backendHeldMs: number }> {
  const before = gateway.reports.length;
  const sent = fault.requests.length;
  const client = rawClient(gateway.url, (socket) =>
    socket.write(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
  );
  const request = await until('the call at the backend', () => fault.requests[sent]);
  client.socket.destroy();
  await client.closed;
  const report = await until('the invocation report', () => gateway.reports[before]);
  return { report, backendHeldMs: (await request.socketClosed) - request.receivedAt };
}
