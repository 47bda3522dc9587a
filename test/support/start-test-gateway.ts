import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { readSettings, type Settings } from '../../src/config/settings.ts';
import type { InvocationReport } from '../../src/engine/invoke-tool.ts';
import { type Gateway, type GatewayOptions, startGateway } from '../../src/server/start-gateway.ts';

/**
 * The real gateway on 127.0.0.1 with an ephemeral port. Backends on loopback
 * are allowed (test-only: the production default refuses them). Load shedding
 * is off unless a test sets `shedLagMs`: it answers the event loop's lag, which
 * on a busy test machine is the other test files' doing, not the gateway's
 * (test/hardening/load-shedding.test.ts tests it with its own threshold).
 */
export async function startTestGateway(
  sculpts: string,
  env: Record<string, string>,
  settings: Partial<Settings> = {},
  mounts: GatewayOptions['mounts'] = [],
): Promise<Gateway & { reports: InvocationReport[] }> {
  const reports: InvocationReport[] = [];
  const gateway = await startGateway({
    settings: readSettings(
      {},
      {
        port: 0,
        host: '127.0.0.1',
        sculpts,
        allowPrivateEgress: true,
        secret: 'test-secret-0123456789',
        shedLagMs: 0,
        ...settings,
      },
    ),
    env,
    mounts,
    onInvocation: (report) => reports.push(report),
  });
  return Object.assign(gateway, { reports });
}

/** POSTs an A2T invocation and returns status, headers and parsed body. */
export async function invoke(
  gatewayUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** An A2T invocation of `tool` by name, its inputs as `{ name: value }`. */
export function invokeTool(
  gatewayUrl: string,
  tool: string,
  inputs: Record<string, unknown> = {},
): ReturnType<typeof invoke> {
  return invoke(gatewayUrl, `/tools/${toolIdFor(tool)}:invoke`, {
    name: tool,
    input_parameters: Object.entries(inputs).map(([name, value]) => ({ name, value })),
  });
}

export async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
