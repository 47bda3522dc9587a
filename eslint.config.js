// @ts-check
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * ARCHITECTURE.md's import table: what each folder of src/ may import from the others. The
 * pipeline runs one way (load → compile → catalog → faces → engine; telemetry a leaf), so a
 * folder imports only stages before it. Enforced below; change the table and the doc together.
 */
const IMPORTS = {
  errors: [],
  cache: [],
  sculpt: ['errors'],
  xml: ['errors'],
  soap: ['openapi', 'xml', 'errors'],
  openapi: ['xml', 'errors'],
  http: ['errors'],
  replay: ['xml', 'errors'],
  arazzo: ['sculpt', 'errors'],
  compile: ['arazzo', 'sculpt', 'openapi', 'soap', 'xml', 'http', 'cache', 'config', 'errors'],
  catalog: ['compile', 'errors'],
  oauth: ['cache', 'sculpt', 'errors'],
  callers: ['sculpt', 'compile', 'engine', 'cache', 'errors'],
  engine: ['arazzo', 'compile', 'config', 'openapi', 'soap', 'sculpt', 'http', 'cache', 'oauth', 'errors'],
  // A leaf: the pipeline installs telemetry's hooks; telemetry imports nothing of it.
  telemetry: ['config', 'errors'],
  config: ['openapi', 'cache'],
  invoke: ['callers', 'catalog', 'compile', 'engine', 'errors'],
  faces: ['callers', 'catalog', 'compile', 'engine', 'errors', 'invoke'],
  designer: [
    'arazzo',
    'cache',
    'callers',
    'catalog',
    'compile',
    'openapi',
    'soap',
    'xml',
    'sculpt',
    'errors',
  ],
  server: [
    'cache',
    'callers',
    'catalog',
    'compile',
    'config',
    'engine',
    'errors',
    'faces',
    'http',
    'invoke',
    'oauth',
    'sculpt',
    'telemetry',
  ],
  testing: ['compile', 'config', 'designer', 'engine', 'errors', 'http', 'replay', 'sculpt', 'server'],
  eval: ['compile', 'designer', 'errors', 'http', 'replay', 'sculpt', 'server', 'telemetry', 'testing'],
  studio: [
    'cache',
    'callers',
    'compile',
    'designer',
    'engine',
    'errors',
    'eval',
    'http',
    'replay',
    'sculpt',
    'server',
    'telemetry',
    'testing',
  ],
};
const FOLDERS = readdirSync('src', { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/** `../x/…` or `../../x/…`: an import of folder x of src/ from a file one or two levels below src/. */
const folderImport = (folder) => [
  `../${folder}/*`,
  `../../${folder}/*`,
  `../../${folder}/**`,
  `../${folder}/**`,
];

/** The pipeline runs one way: only faces, the server and the CLI may know the web framework. */
const noWebFramework = {
  patterns: [
    {
      group: ['hono', 'hono/*', '@hono/*'],
      message:
        'Only src/faces, src/server, src/studio and src/cli may import the web framework (see ARCHITECTURE.md).',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-control-regex': 'off',
      // A timer declared before the closure that clears it is assigned once, later.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  // The import table, folder by folder (the web-framework rule above stays where it applies).
  // src/cli drives everything: no row, no restriction.
  ...FOLDERS.filter((folder) => IMPORTS[folder]).map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...(['faces', 'server', 'studio', 'cli'].includes(folder) ? [] : noWebFramework.patterns),
            ...FOLDERS.filter((other) => other !== folder && !IMPORTS[folder].includes(other)).map(
              (other) => ({
                group: folderImport(other),
                message: `src/${folder} may not import src/${other} (ARCHITECTURE.md, the import table).`,
              }),
            ),
          ],
        },
      ],
    },
  })),
  // No face imports another face (existing or to come): what two faces share lives in faces/common.
  {
    files: ['src/faces/**/*.ts'],
    ignores: ['src/faces/common/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...FOLDERS.filter((other) => !IMPORTS.faces.includes(other) && other !== 'faces').map(
              (other) => ({
                group: folderImport(other),
                message: `A face may not import src/${other} (ARCHITECTURE.md, the import table).`,
              }),
            ),
            {
              // `../<folder>/…` from a face's folder is a sibling of faces/: only faces/common may be one.
              regex: '^\\.\\./(?!\\.\\./|common/)[^/]+/',
              message: 'A face may not import another face: put what both need in faces/common.',
            },
          ],
        },
      ],
    },
  },
  {
    // The Studio's page runs in the browser, as shipped (no build step).
    files: ['src/studio/public/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['document', 'window', 'fetch', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
  },
);
