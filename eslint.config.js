// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  {
    files: ['src/**/*.ts'],
    ignores: ['src/faces/**', 'src/server/**', 'src/studio/**', 'src/cli/**'],
    rules: { 'no-restricted-imports': ['error', noWebFramework] },
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
