import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileEach, compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { createEngine } from '../../src/engine/invoke-tool.ts';
import { createBackendClient } from '../../src/http/backend-client.ts';

/**
 * Workflow steps with form-urlencoded and multipart request bodies, sent to a real loopback
 * server: the step's contentType is the one sent (even where the operation also takes JSON), a
 * form payload may be written as text, and a body type Sculptor does not write is refused at load.
 */
const OPENAPI = `openapi: 3.0.3
info: { title: Forms, version: '1.0' }
paths:
  /token:
    post:
      operationId: getToken
      requestBody:
        required: true
        content:
          application/json: { schema: { type: object } }
          application/x-www-form-urlencoded: { schema: { type: object } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: object } } } }
  /notes:
    post:
      operationId: addNote
      requestBody:
        content:
          multipart/form-data: { schema: { type: object } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: object } } } }
  /avatar:
    put:
      operationId: putAvatar
      requestBody:
        content:
          image/png: { schema: { type: string, format: binary } }
      responses:
        '204': { description: stored }
`;

const ARAZZO = `arazzo: 1.0.1
info: { title: Forms, version: 1.0.0 }
sourceDescriptions: [{ name: forms, url: ./openapi.yaml, type: openapi }]
workflows:
  - workflowId: sign-in-and-note
    description: Sign in and leave a note. Use it when the user wants to leave a note.
    inputs:
      type: object
      required: [user, note]
      properties:
        user: { type: string }
        note: { type: string }
    steps:
      - stepId: token
        operationId: getToken
        requestBody:
          contentType: application/x-www-form-urlencoded
          payload: grant_type=password&username={$inputs.user}&scope=notes
          replacements:
            - { target: /scope, value: 'notes read' }
        outputs: { token: $response.body#/token }
      - stepId: note
        operationId: addNote
        requestBody:
          contentType: multipart/form-data
          payload: { text: $inputs.note, by: '{$inputs.user}', meta: { token: $steps.token.outputs.token } }
        outputs: { id: $response.body#/id }
    outputs: { noteId: $steps.note.outputs.id }
  - workflowId: set-avatar
    description: Upload an avatar. Use it when the user wants a new picture.
    inputs: { type: object, properties: { png: { type: string } } }
    steps:
      - stepId: upload
        operationId: putAvatar
        requestBody: { contentType: image/png, payload: '$inputs.png' }
        outputs: { status: $statusCode }
    outputs: { done: $steps.upload.outputs.status }
`;

let dir: string;
let server: http.Server;
let url: string;
const received: Array<{ path: string; type: string; body: string }> = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sculptor-arazzo-forms-'));
  await writeFile(path.join(dir, 'openapi.yaml'), OPENAPI);
  await writeFile(path.join(dir, 'forms.arazzo.yaml'), ARAZZO);
  await writeFile(
    path.join(dir, 'backends.yaml'),
    'backends:\n  forms:\n    openapi: openapi.yaml\n    baseUrl: ${FORMS_URL}\n    allowPrivate: true\n' +
      'arazzo:\n  forms:\n    document: forms.arazzo.yaml\n    workflows: [sign-in-and-note]\n',
  );
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/token' ? { token: 't-1' } : { id: 'n-7' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('form and multipart request bodies in workflows', () => {
  it('sends the form and the multipart body each step declares', async () => {
    const [tool] = await compileSculpts(dir, { FORMS_URL: url });
    expect(tool!.signature.name).toBe('sign_in_and_note');
    const client = createBackendClient();
    try {
      const engine = createEngine({
        sender: client,
        cacheSecret: 'forms-secret-0123456789abcdef',
        allowPrivateEgress: true,
      });
      const result = await engine.invoke(tool!, { user: 'ann & bo', note: 'hello' });
      expect(result.outputs.map((p) => [p.name, p.value])).toEqual([['note_id', 'n-7']]);
    } finally {
      await client.close();
    }
    const [token, note] = received;
    // The operation prefers JSON; the step said form, and form is what goes out.
    expect(token!.type).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(token!.body))).toEqual({
      grant_type: 'password',
      username: 'ann & bo',
      scope: 'notes read',
    });
    const boundary = /boundary=(.+)$/.exec(note!.type)?.[1];
    expect(note!.type).toMatch(/^multipart\/form-data; boundary=/);
    const parts = note!.body.split(`--${boundary}`).slice(1, -1);
    expect(parts.map((p) => /name="([^"]+)"/.exec(p)?.[1])).toEqual(['text', 'by', 'meta']);
    expect(parts[2]).toContain('content-type: application/json');
    expect(parts[2]).toContain('{"token":"t-1"}');
  });

  it('a body type Sculptor does not write is refused at load, naming it, at the contentType', async () => {
    await writeFile(
      path.join(dir, 'backends.yaml'),
      'backends:\n  forms:\n    openapi: openapi.yaml\n    baseUrl: http://127.0.0.1:9\n    allowPrivate: true\n' +
        'arazzo:\n  forms:\n    document: forms.arazzo.yaml\n',
    );
    const { tools, errors } = await compileEach(dir, {});
    expect(tools.map((t) => t.signature.name)).toEqual(['sign_in_and_note']);
    expect(errors.map((e) => [e.code, e.at?.line])).toEqual([
      ['compile.unsupported_feature', ARAZZO.split('\n').findIndex((l) => l.includes('image/png')) + 1],
    ]);
    expect(errors[0]!.message).toContain('a image/png request body is not supported');
  });
});
