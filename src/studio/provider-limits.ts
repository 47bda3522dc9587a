import type { CompiledTool } from '../compile/compile-tool.ts';
import { describe } from '../compile/tool-schema.ts';
import { PROVIDER_NAME_MAX } from '../designer/lint-tools.ts';
import { OPENAI_DESCRIPTION_MAX } from '../designer/provider-exports.ts';

/**
 * What a provider would refuse, or change, in one tool — the Studio's warnings beside each view.
 * Only limits the providers document, with where (read 2025; check again when a provider
 * changes its API):
 * - OpenAI, API reference "Chat Completions → Create → tools → function": `name` "must be a-z,
 *   A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64" (the API answers 400
 *   "does not match ^[a-zA-Z0-9_-]{1,64}$"); `description` at most 1024 characters (400 "string
 *   too long"), which is why the export cuts it (`describe(…, OPENAI_DESCRIPTION_MAX)`).
 *   Guide "Structured Outputs → Supported schemas" (strict mode): at most 1000 enum values across
 *   all enum properties, and a string enum of more than 250 values at most 15,000 characters.
 * - Anthropic, API reference "Messages → tools": `name` matches ^[a-zA-Z0-9_-]{1,64}$.
 * - Gemini, API reference "FunctionDeclaration.name": starts with a letter or an underscore;
 *   a-z, A-Z, 0-9, underscores, dots, colons and dashes; at most 64 characters.
 * - MCP, specification 2025-11-25 "Server features → Tools → Tool names": 1 to 128 characters of
 *   A-Z, a-z, 0-9, `_`, `-` and `.` (a SHOULD: clients may refuse others).
 */
export const MCP_NAME_MAX = 128;
const OPENAI_ENUM_VALUES_MAX = 1000;
const OPENAI_LONG_ENUM = 250;
const OPENAI_LONG_ENUM_CHARS_MAX = 15_000;

/** Warnings per consumer (A2T, mcp, openai, anthropic, gemini, agent-tool); absent: none. */
export function providerWarnings(tool: CompiledTool): Record<string, string[]> {
  const name = tool.signature.name;
  const warnings: Record<string, string[]> = {};
  const warn = (consumer: string, text: string) => (warnings[consumer] ??= []).push(text);

  for (const consumer of ['openai', 'anthropic'] as const) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      warn(
        consumer,
        name.length > PROVIDER_NAME_MAX
          ? `The name is ${name.length} characters; ${consumer === 'openai' ? 'OpenAI' : 'Anthropic'} refuses more than ${PROVIDER_NAME_MAX}.`
          : `The name has characters ${consumer === 'openai' ? 'OpenAI' : 'Anthropic'} refuses (only a-z, A-Z, 0-9, _ and -).`,
      );
    }
  }
  if (name.length > PROVIDER_NAME_MAX) {
    warn('gemini', `The name is ${name.length} characters; Gemini refuses more than ${PROVIDER_NAME_MAX}.`);
  } else if (!/^[A-Za-z_][A-Za-z0-9_.:-]*$/.test(name)) {
    warn(
      'gemini',
      'Gemini refuses this name: it must start with a letter or _ and hold only a-z, 0-9, _ . : -.',
    );
  }
  if (name.length > MCP_NAME_MAX || !/^[A-Za-z0-9_.-]+$/.test(name)) {
    warn(
      'mcp',
      `MCP tool names should be 1 to ${MCP_NAME_MAX} characters of A-Z a-z 0-9 _ - . (clients may refuse this one).`,
    );
  }

  const full = describe(tool.signature.description, tool.effects);
  if (full.length > OPENAI_DESCRIPTION_MAX) {
    const cut = describe(tool.signature.description, tool.effects, OPENAI_DESCRIPTION_MAX);
    warn(
      'openai',
      `The description with its safety flags is ${full.length} characters; OpenAI takes at most ${OPENAI_DESCRIPTION_MAX}, so the export cuts it to ${cut.length} and the model never reads the last ${full.length - cut.length}. Put what matters first, or shorten it.`,
    );
  }

  const enums = tool.signature.input_parameters.flatMap((p) =>
    p['allowed-values'] ? [{ name: p.name, values: p['allowed-values'].map((v) => v.name) }] : [],
  );
  const total = enums.reduce((n, e) => n + e.values.length, 0);
  if (total > OPENAI_ENUM_VALUES_MAX) {
    warn(
      'openai',
      `Strict mode takes at most ${OPENAI_ENUM_VALUES_MAX} enum values in all; this tool has ${total}.`,
    );
  }
  for (const e of enums) {
    const chars = e.values.reduce((n, v) => n + v.length, 0);
    if (e.values.length > OPENAI_LONG_ENUM && chars > OPENAI_LONG_ENUM_CHARS_MAX) {
      warn(
        'openai',
        `Strict mode refuses '${e.name}': more than ${OPENAI_LONG_ENUM} values and ${chars} characters of them (at most ${OPENAI_LONG_ENUM_CHARS_MAX}).`,
      );
    }
  }
  return warnings;
}
