/**
 * RELIABILITY B2 / property P4: whatever string reaches a path parameter, the
 * built URL keeps the configured origin, the base path and the template's
 * static prefix, with the value confined to its own segment, and the URL parser
 * reads it exactly as built — or the builder refuses with input.invalid.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SculptorError } from '../../src/errors/sculptor-error.ts';
import { buildRequest } from '../../src/openapi/build-request.ts';
import { operation, param } from './operation-builders.ts';

const tricky = fc.constantFrom(
  '..',
  '.',
  '%2e%2e',
  '%2E%2E/admin',
  '.%2e',
  '//evil',
  '//evil.test/x',
  '@evil',
  'user@evil.test',
  '\\evil',
  '\\\\evil.test\\x',
  '../admin',
  'a/../../admin',
  '..;/admin',
  '?admin=1',
  '#frag',
  'http://evil.test/',
  ':80',
  '%00',
  '\u0000',
  '\r\n',
  '\u2025', // two dot leader
  '\uff0e\uff0e', // fullwidth dots
  '\u2215evil', // division slash
  'ü/..',
  '😀',
  '\ud800',
);

const value = fc.oneof(
  tricky,
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc
    .array(fc.oneof(tricky, fc.string({ unit: 'grapheme-ascii' })), { maxLength: 4 })
    .map((parts) => parts.join('')),
);

const templates = [
  { path: '/things/{id}', segments: 2 },
  { path: '/a/{id}/b', segments: 3 },
  { path: '/files/{id}.json', segments: 2 },
  { path: '/{id}', segments: 1 },
  { path: '/pairs/{id},{other}/x', segments: 3 },
];

const bases = ['https://api.example.test/v2', 'http://127.0.0.1:4010', 'https://h.example.test/deep/base/'];

const styles = [{}, { style: 'label' }, { style: 'matrix' }, { explode: true }];

describe('buildRequest with any path value', () => {
  it('keeps origin, base path and static prefix, or refuses with input.invalid', () => {
    fc.assert(
      fc.property(
        value,
        value,
        fc.constantFrom(...templates),
        fc.constantFrom(...bases),
        fc.constantFrom(...styles),
        (id, other, template, baseUrl, style) => {
          const op = operation(template.path, [param('id', 'path', style), param('other', 'path')]);
          const base = new URL(baseUrl);
          const basePath = base.pathname.replace(/\/+$/, '');
          let built: string;
          try {
            built = buildRequest(op, baseUrl, { id, other }).url;
          } catch (error) {
            expect(error).toBeInstanceOf(SculptorError);
            expect((error as SculptorError).code).toBe('input.invalid');
            return;
          }
          const url = new URL(built);
          // The URL parser keeps the URL exactly as built: nothing to check again after building.
          expect(url.href).toBe(built);
          const staticPrefix = template.path.slice(0, template.path.indexOf('{'));
          expect(url.origin).toBe(base.origin);
          expect(url.pathname.startsWith(`${basePath}${staticPrefix}`)).toBe(true);
          expect(url.search).toBe('');
          expect(url.hash).toBe('');
          // One segment per template segment: the value never adds or removes one.
          expect(url.pathname.slice(basePath.length).split('/').length - 1).toBe(template.segments);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('buildRequest with any query or header value', () => {
  it('round-trips well-formed strings through the query unchanged', () => {
    const op = operation('/search', [param('q', 'query')]);
    fc.assert(
      fc.property(value, (q) => {
        let url: URL;
        try {
          url = new URL(buildRequest(op, 'https://api.example.test/v1', { q }).url);
        } catch (error) {
          expect((error as SculptorError).code).toBe('input.invalid');
          expect(q.isWellFormed()).toBe(false);
          return;
        }
        expect(url.origin).toBe('https://api.example.test');
        expect(url.pathname).toBe('/v1/search');
        expect(url.searchParams.getAll('q')).toEqual([q]);
      }),
      { numRuns: 1_000 },
    );
  });

  it('never lets a header value carry CR, LF or NUL', () => {
    const op = operation('/h', [param('X-Value', 'header')]);
    fc.assert(
      fc.property(value, (v) => {
        let headers: Record<string, string>;
        try {
          headers = buildRequest(op, 'https://api.example.test', { 'X-Value': v }).headers;
        } catch (error) {
          expect((error as SculptorError).code).toBe('input.invalid');
          return;
        }
        expect(headers['x-value']).toBe(v);
        expect(/[\r\n\0]/.test(v)).toBe(false);
      }),
      { numRuns: 1_000 },
    );
  });
});
