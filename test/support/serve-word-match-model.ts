import { startTestModel } from './word-match-model.ts';

/**
 * The test suite's word-matching model as a process (`npm run eval:test-model -- --port N`), so
 * that `sculptor eval` can be tried, and the README's figures rerun, on a machine without a model.
 * It is not a language model: it picks tools by the words they share with the request.
 */
const at = process.argv.indexOf('--port');
const port = at > 0 ? Number(process.argv[at + 1]) : 0;
const model = await startTestModel({ port });
console.log(`word-match test model at ${model.url} (Ctrl-C stops it)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void model.close().then(() => process.exit(0)));
}
