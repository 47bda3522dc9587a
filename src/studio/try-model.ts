import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Hono } from 'hono';
import { parseDocument } from 'yaml';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { displayPath } from '../designer/findings.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import {
  describeEndpoint,
  type EndpointConfig,
  endpointFromEnv,
  maskSecrets,
} from '../eval/endpoint-config.ts';
import { engineArguments, FACES, type Face, offerCatalog, readCall } from '../eval/offered-tools.ts';
import { EVAL_SUFFIX, parseScenarios } from '../eval/scenario-file.ts';
import { catalogSecrets } from '../eval/tool-runner.ts';
import type { Workspace } from './studio-workspace.ts';

/**
 * The Studio's "try with a model": a request typed in the page goes to the model of
 * SCULPTOR_EVAL_URL / SCULPTOR_EVAL_MODEL (the key, SCULPTOR_EVAL_API_KEY, stays in this
 * process) with the folder's tools as a face lists them — the selected tool at the version shown.
 * The page gets the model's calls as it made them, whether their arguments validate, and the
 * first call's run with its trace (the workspace's own run, so the playground and "save as test"
 * work on it). "Save as scenario" appends the request to `<tool>.eval.yaml` beside the sculpt,
 * expecting the arguments the designer typed: never the ones the model sent.
 */
export interface TryModelOptions {
  env?: Readonly<Record<string, string | undefined>>;
}

interface TryBody {
  tool: string;
  version?: number;
  request: string;
  face?: string;
  mode?: string;
}

interface SaveBody {
  tool: string;
  /** The version whose inputs the page showed (default: the latest). */
  version?: number;
  name?: string;
  request: string;
  /** The values the designer expects, by input; inputs left out may appear with any value. */
  arguments?: Record<string, unknown>;
}

const MAX_REQUEST = 8000;

export function mountTryModel(app: Hono, workspace: Workspace, options: TryModelOptions = {}): void {
  const env = options.env ?? process.env;
  const configured = (): EndpointConfig | SculptorError => {
    try {
      return endpointFromEnv(env, { timeoutMs: 120_000, retries: 1 });
    } catch (err) {
      return err as SculptorError;
    }
  };

  app.get('/studio/api/try', (c) => {
    const config = configured();
    return c.json(
      config instanceof SculptorError
        ? { configured: false, message: config.message }
        : { configured: true, model: config.model, endpoint: describeEndpoint(config) },
    );
  });

  app.post('/studio/api/try', async (c) => {
    const body = (await c.req.json()) as TryBody;
    const config = configured();
    if (config instanceof SculptorError)
      return c.json({ error: { code: config.code, message: config.message } }, 503);
    const request = typeof body.request === 'string' ? body.request.trim() : '';
    if (!request || request.length > MAX_REQUEST) {
      return c.json(
        { error: { code: 'studio.request', message: `Type a request (at most ${MAX_REQUEST} characters).` } },
        400,
      );
    }
    const face: Face = FACES.includes(body.face as Face) ? (body.face as Face) : 'mcp';
    const offered = offeredTools(workspace.tools(), body.tool, body.version);
    if (!offered)
      return c.json({ error: { code: 'studio.no_tool', message: `There is no tool '${body.tool}'.` } }, 404);
    const catalog = offerCatalog(workspace.dir, offered, face);
    const secrets = catalogSecrets(catalog);
    try {
      // The client is loaded when a model is first asked, not with the Studio.
      const { createModelEndpoint } = await import('../eval/model-endpoint.ts');
      const reply = await createModelEndpoint(config, () => secrets).complete({
        messages: [{ role: 'user', content: request }],
        tools: catalog.chatTools,
        temperature: 0,
      });
      const calls = reply.toolCalls.map((call) => readCall(catalog, call.name, call.arguments));
      const first = calls[0];
      const tool = first ? catalog.tools.get(first.tool) : undefined;
      const run =
        first && tool && first.arguments
          ? await workspace.run(
              first.tool,
              tool.signature.version,
              engineArguments(catalog, first),
              body.mode === 'live' ? 'live' : 'recordings',
            )
          : undefined;
      const known = [config.apiKey ?? '', ...secrets].filter((s) => s.length >= 4);
      return c.json(
        JSON.parse(
          maskSecrets(
            JSON.stringify({
              model: config.model,
              endpoint: describeEndpoint(config),
              face,
              offered: { tools: catalog.tools.size, characters: catalog.characters },
              calls: calls.map(({ tool, rawArguments, valid, problems }) => ({
                tool,
                rawArguments,
                valid,
                problems,
              })),
              answer: reply.content,
              ...(run ? { run } : {}),
              usage: { promptTokens: reply.promptTokens, completionTokens: reply.completionTokens },
              latencyMs: reply.latencyMs,
            }),
            known,
          ),
        ),
      );
    } catch (err) {
      if (err instanceof SculptorError)
        return c.json({ error: { code: err.code, message: err.message } }, 502);
      throw err;
    }
  });

  app.post('/studio/api/save-scenario', async (c) => {
    const body = (await c.req.json()) as SaveBody;
    const tool = offeredTools(workspace.tools(), body.tool, body.version)?.at(-1);
    if (!tool)
      return c.json({ error: { code: 'studio.no_tool', message: `There is no tool '${body.tool}'.` } }, 404);
    const request = typeof body.request === 'string' ? body.request.trim() : '';
    if (!request)
      return c.json({ error: { code: 'studio.request', message: 'A scenario needs the request.' } }, 400);
    const inputs = tool.signature.input_parameters.map((p) => p.name);
    const expected = Object.fromEntries(
      Object.entries(body.arguments ?? {}).filter(([, v]) => v !== undefined && v !== ''),
    );
    const unknown = Object.keys(expected).filter((k) => !inputs.includes(k));
    if (unknown.length > 0) {
      return c.json(
        { error: { code: 'studio.scenario', message: `${body.tool} has no input ${unknown.join(', ')}.` } },
        400,
      );
    }
    const file = path.join(path.dirname(tool.file), `${tool.signature.name}${EVAL_SUFFIX}`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      text = `# Scenarios for sculptor eval (docs/EVAL.md), saved from the Studio.\nscenarios: []\n`;
    }
    const optional = inputs.filter((n) => !(n in expected));
    const scenario = {
      name: body.name?.trim() || request.slice(0, 80),
      request,
      expect: {
        tool: tool.signature.name,
        ...(Object.keys(expected).length > 0 ? { arguments: expected } : {}),
        ...(optional.length > 0 ? { optional } : {}),
      },
    };
    // Added to the file's own document, so its comments and layout stay as the designer wrote them.
    const doc = parseDocument(text);
    if (doc.errors.length > 0) {
      return c.json(
        {
          error: {
            code: 'studio.scenario',
            message: `${displayPath(file)} does not parse: ${doc.errors[0]!.message}`,
          },
        },
        400,
      );
    }
    doc.addIn(['scenarios'], doc.createNode(scenario));
    const next = doc.toString();
    // What is written must read back as a scenario file: checked before it is written.
    const check = parseScenarios(file, next);
    if (check.errors.length > 0) {
      return c.json(
        { error: { code: 'studio.scenario', message: check.errors.map((e) => e.format()).join('\n') } },
        400,
      );
    }
    await writeFile(file, next);
    return c.json({ file: displayPath(file), scenario: scenario.name });
  });
}

/** The latest version of every tool, the selected one at the version shown; undefined when it is not there. */
function offeredTools(
  tools: readonly CompiledTool[],
  name: string,
  version: number | undefined,
): CompiledTool[] | undefined {
  const versions = tools.filter((t) => t.signature.name === name);
  const chosen =
    version === undefined
      ? versions.reduce<CompiledTool | undefined>(
          (a, b) => (!a || b.signature.version > a.signature.version ? b : a),
          undefined,
        )
      : versions.find((t) => t.signature.version === version);
  if (!chosen) return undefined;
  return [...tools.filter((t) => t.signature.name !== name), chosen];
}
