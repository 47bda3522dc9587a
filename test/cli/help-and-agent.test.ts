import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import atipSchema from './fixtures/provider-schemas/atip-description.schema.json' with { type: 'json' };
import { runCli } from './run-cli.ts';

const COMMANDS = [
  'serve',
  'mcp',
  'check',
  'test',
  'init',
  'operations',
  'export',
  'diff',
  'eval',
  'lock',
  'invoke',
  'studio',
  'replay',
];

describe('sculptor --help', () => {
  it('lists every command', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const c of COMMANDS) expect(result.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
  });

  it.each(COMMANDS)('sculptor %s --help prints its usage and options, exit 0', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: sculptor ${command}\\b`));
    expect(result.stdout).toMatch(/^Options:$/m);
    expect(result.stdout).toMatch(/-h, --help/);
  });

  it('names an unknown command (exit 2)', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown command 'frobnicate'/);
  });

  it('names a missing required option (exit 2)', async () => {
    const result = await runCli(['init', '--operation', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Option --openapi is required/);
  });
});

describe('sculptor --agent (ATIP)', () => {
  it('describes the CLI in ATIP JSON on stdout: commands, options, effects', async () => {
    const result = await runCli(['--agent']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const description = JSON.parse(result.stdout);
    const validate = new Ajv({ allErrors: true, strict: false }).compile(atipSchema);
    expect(validate(description), JSON.stringify(validate.errors)).toBe(true);
    expect(description.atip).toBe('0.1');
    expect(description.name).toBe('sculptor');
    expect(Object.keys(description.commands).sort()).toEqual([...COMMANDS].sort());
    // What an agent needs to decide: init writes files, invoke may destroy, check reads only.
    expect(description.commands.init.effects.filesystem.write).toBe(true);
    expect(description.commands.invoke.effects.destructive).toBe(true);
    expect(description.commands.check.effects).toMatchObject({
      network: false,
      destructive: false,
      filesystem: { write: false },
    });
    const format = description.commands.export.options.find((o: { name: string }) => o.name === 'format');
    expect(format).toMatchObject({
      flags: ['-f', '--format'],
      type: 'enum',
      enum: ['openai', 'anthropic', 'gemini', 'agent-tool', 'arazzo'],
      required: true,
    });
  });

  it('limits the description to --commands (partial discovery)', async () => {
    const result = await runCli(['--agent', '--commands=check,lock']);
    expect(result.code).toBe(0);
    const description = JSON.parse(result.stdout);
    expect(description.partial).toBe(true);
    expect(Object.keys(description.commands)).toEqual(['check', 'lock']);
    expect(description.totalCommands).toBe(COMMANDS.length);
  });

  it('has no side effects and refuses unknown command names', async () => {
    const result = await runCli(['--agent', '--commands=nope']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});
