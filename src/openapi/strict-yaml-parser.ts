/**
 * YAML parser plugin for json-schema-ref-parser, replacing its js-yaml one.
 *
 * js-yaml has no alias budget, so a billion-laughs document parses into a
 * small shared graph that explodes in every later walk or `JSON.stringify`.
 * eemeli/yaml counts alias expansions (`maxAliasCount`) and rejects duplicate
 * keys; warnings are treated as errors (RELIABILITY H1). The core schema is
 * YAML 1.2's: dates stay strings, no custom tags. Merge keys (`<<`) are a
 * YAML 1.1 habit some documents still use, so they stay on.
 */
import { parseDocument } from 'yaml';

const MAX_ALIAS_COUNT = 100;

interface ParsedFile {
  url: string;
  data: string | Buffer;
}

export const strictYamlParser = {
  name: 'yaml',
  order: 200,
  // Empty files are legal YAML; json-schema-ref-parser decides what an empty value means.
  allowEmpty: true,
  canParse: ['.yaml', '.yml', '.json'],
  parse(file: ParsedFile): unknown {
    const text = typeof file.data === 'string' ? file.data : file.data.toString('utf8');
    const doc = parseDocument(text, { uniqueKeys: true, merge: true, schema: 'core', prettyErrors: true });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw new Error(`YAML: ${problem.message}`);
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  },
};
