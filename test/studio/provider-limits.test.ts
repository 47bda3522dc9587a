/**
 * The Studio's provider warnings ("what the LLM sees"): a description OpenAI's export
 * cuts at 1024 characters, and a name over the 64 characters OpenAI, Anthropic and Gemini take,
 * shown beside the views of a tool, with the MCP tools/list entry from the one generator.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace, type Workspace } from '../../src/studio/studio-workspace.ts';

const LONG_NAME = `shout_${'very_'.repeat(14)}loudly`;
const LONG_DESCRIPTION = `Repeats a word. Use it when the user asks to hear a word repeated. ${'It says the word again and again. '.repeat(32)}`;

describe('provider warnings in the Studio', () => {
  let dir: string;
  let workspace: Workspace;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sculptor-limits-'));
    await cp('test/studio/fixtures/echo', dir, { recursive: true });
    const file = path.join(dir, 'shout_word.v1.sculpt.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text
        .replace('tool: shout_word', `tool: ${LONG_NAME}`)
        .replace(/description: Repeats.*\n/, `description: '${LONG_DESCRIPTION}'\n`),
    );
    workspace = await openWorkspace({ dir, env: { ECHO_KEY: 'k-0123456789' } });
  });
  afterAll(async () => {
    await workspace?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('warns where a provider cuts or refuses, and refuses the exports that cannot be made', () => {
    expect(LONG_NAME.length).toBeGreaterThan(64);
    const views = workspace.views(LONG_NAME)!;
    const of = (consumer: string) => views.views.find((v) => v.consumer === consumer)!;
    expect(of('openai').warnings).toEqual([
      `The name is ${LONG_NAME.length} characters; OpenAI refuses more than 64.`,
      expect.stringMatching(
        /^The description with its safety flags is \d+ characters; OpenAI takes at most 1024, so the export cuts it to \d+ and the model never reads the last \d+\./,
      ),
    ]);
    expect(of('anthropic').warnings).toEqual([
      `The name is ${LONG_NAME.length} characters; Anthropic refuses more than 64.`,
    ]);
    expect(of('gemini').warnings).toEqual([
      `The name is ${LONG_NAME.length} characters; Gemini refuses more than 64.`,
    ]);
    // MCP takes names up to 128 characters; A2T has no such limit.
    expect(of('mcp').warnings).toEqual([]);
    expect(of('A2T').warnings).toEqual([]);
    expect(of('openai').problem).toMatch(/longer than 64 characters/);
    const mcp = JSON.parse(of('mcp').text!);
    expect(mcp.name).toBe(LONG_NAME);
    expect(mcp.description.length).toBeGreaterThan(1024);
    expect(of('mcp').tokens).toBe(Math.ceil(of('mcp').characters / 4));
  });

  it('says nothing for a tool every provider takes', async () => {
    const plain = await openWorkspace({
      dir: 'test/studio/fixtures/echo',
      env: { ECHO_KEY: 'k-0123456789' },
    });
    try {
      expect(plain.views('shout_word')!.views.flatMap((v) => v.warnings)).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
