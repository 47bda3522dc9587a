/**
 * The import table of ARCHITECTURE.md is enforced by lint (eslint.config.js): a face
 * importing another face or designer/, or a stage importing a later one, fails `npm run lint`.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('lint: the import table', () => {
  it('refuses a face importing another face', async () => {
    const messages = await restricted(
      'src/faces/mcp/probe.ts',
      "import { problem } from '../a2t/a2t-face.ts';\nexport const x = problem;\n",
    );
    expect(messages).toEqual([expect.stringContaining('A face may not import another face')]);
  });

  it('refuses a face importing designer/', async () => {
    const messages = await restricted(
      'src/faces/a2t/probe.ts',
      "import { exportTools } from '../../designer/provider-exports.ts';\nexport const x = exportTools;\n",
    );
    expect(messages).toEqual([expect.stringContaining('A face may not import src/designer')]);
  });

  it('refuses a stage importing a later one, and the web framework outside faces, server, studio and cli', async () => {
    expect(
      await restricted(
        'src/engine/probe.ts',
        "import { Catalog } from '../catalog/catalog.ts';\nexport const x = Catalog;\n",
      ),
    ).toEqual([expect.stringContaining('src/engine may not import src/catalog')]);
    expect(
      await restricted('src/engine/probe.ts', "import { Hono } from 'hono';\nexport const x = Hono;\n"),
    ).toEqual([expect.stringContaining('web framework')]);
  });

  it('keeps telemetry a leaf: the engine may not import it, nor it the engine', async () => {
    expect(
      await restricted(
        'src/engine/probe.ts',
        "import { traceStep } from '../telemetry/tracing.ts';\nexport const x = traceStep;\n",
      ),
    ).toEqual([expect.stringContaining('src/engine may not import src/telemetry')]);
    expect(
      await restricted(
        'src/telemetry/probe.ts',
        "import type { Engine } from '../engine/invoke-tool.ts';\nexport type X = Engine;\n",
      ),
    ).toEqual([expect.stringContaining('src/telemetry may not import src/engine')]);
  });

  it('lets faces reach the call service (src/invoke)', async () => {
    expect(
      await restricted(
        'src/faces/mcp/probe.ts',
        "import { outputRecord } from '../../invoke/call-service.ts';\nexport const x = outputRecord;\n",
      ),
    ).toEqual([]);
  });

  it('lets faces share through faces/common and read the catalog', async () => {
    expect(
      await restricted(
        'src/faces/mcp/probe.ts',
        "import { readJsonBody } from '../common/read-json-body.ts';\nimport type { Catalog } from '../../catalog/catalog.ts';\nexport const x: [typeof readJsonBody, Catalog?] = [readJsonBody];\n",
      ),
    ).toEqual([]);
  });
});
