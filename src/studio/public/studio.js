// Sculptor Studio: Preact components written with htm, no build step.
import { h, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import htm from 'htm';
import { TryModel } from './try-model.js';

const html = htm.bind(h);
/** A caller's bearer token, when the Studio is behind the callers' authentication (`serve --studio`). */
const TOKEN_KEY = 'sculptor-studio-token';
const token = () => window.sessionStorage.getItem(TOKEN_KEY);
let onUnauthenticated = () => {};
const api = async (path, body) => {
  const headers = token() ? { authorization: `Bearer ${token()}` } : {};
  const res = await fetch(
    `/studio/api/${path}`,
    body === undefined
      ? { headers }
      : {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
  );
  if (res.status === 401) onUnauthenticated();
  return res.json();
};
const pretty = (value) => (value === undefined ? '(nothing)' : JSON.stringify(value, null, 2));
/** A cache TTL in the sculpt's units: 30d, 7d, 1h, 5m, 30s. */
const duration = (ms) => {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ]) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms} ms`;
};

/** Asks for a caller's token when the Studio's API is behind the callers' authentication. */
function SignIn({ onDone }) {
  const [value, setValue] = useState('');
  const submit = (e) => {
    e.preventDefault();
    window.sessionStorage.setItem(TOKEN_KEY, value.trim());
    onDone();
  };
  return html`<main class="signin">
    <form onSubmit=${submit}>
      <h1>Sculptor Studio</h1>
      <p>This Studio is behind the gateway's callers' authentication: give a caller's bearer token.</p>
      <label for="token">Caller token</label>
      <input
        id="token"
        type="password"
        autocomplete="off"
        value=${value}
        onInput=${(e) => setValue(e.target.value)}
      />
      <button class="primary" type="submit">Open</button>
    </form>
  </main>`;
}

function Findings({ findings }) {
  if (findings.length === 0) return html`<p class="ok">No errors or warnings.</p>`;
  return html`<ul class="findings">
    ${findings.map(
      (f) =>
        // One string: htm drops the whitespace between lines of a template.
        html`<li class=${f.severity}>
          ${`${f.file ? `${f.file}:${f.line}:${f.column} ` : ''}${f.code} ${f.severity === 'warning' ? 'warning: ' : ''}${f.message}`}
        </li>`,
    )}
  </ul>`;
}

function Views({ views, tokenRule }) {
  return html`<p><small>Sizes: ${tokenRule}.</small></p>
    <div class="views">
      ${views.map(
        (v) =>
          html`<div class="view" data-consumer=${v.consumer}>
            <h3>${v.consumer} <small>${v.characters} characters, ~${v.tokens} tokens</small></h3>
            ${v.warnings.map((w) => html`<p class="warning">⚠ ${w}</p>`)}
            ${v.problem ? html`<p class="error">Refused: ${v.problem}</p>` : html`<pre tabindex="0">${v.text}</pre>`}
          </div>`,
      )}
    </div>`;
}

/** An input field from the signature: enums and booleans as choices, bounds enforced by the browser. */
function Field({ parameter, value, onInput }) {
  const { name, type, description } = parameter;
  const id = `input-${name}`;
  const help = `${id}-help`;
  const label = html`<label for=${id}>${name}${parameter.required === false ? ' (optional)' : ''}</label>`;
  if (type === 'enum' || type === 'boolean') {
    const values =
      type === 'boolean' ? ['true', 'false'] : (parameter['allowed-values'] ?? []).map((v) => v.name);
    const chosen = (text) => (text === '' ? undefined : type === 'boolean' ? text === 'true' : text);
    return html`<div class="field">
      ${label}
      <select
        id=${id}
        name=${name}
        aria-describedby=${help}
        required=${parameter.required !== false}
        value=${value === undefined ? '' : String(value)}
        onChange=${(e) => onInput(chosen(e.target.value))}
      >
        ${parameter.required === false ? html`<option value="">(leave out)</option>` : html`<option value="" disabled>(choose)</option>`}
        ${values.map((v) => html`<option value=${v}>${v}</option>`)}
      </select>
      <small id=${help}>${description}</small>
    </div>`;
  }
  const numeric = type === 'int';
  const bounds =
    parameter.min !== undefined || parameter.max !== undefined
      ? ` (${parameter.min ?? '…'} to ${parameter.max ?? '…'})`
      : '';
  const length = parameter.maxLength !== undefined ? ` (at most ${parameter.maxLength} characters)` : '';
  return html`<div class="field">
    ${label}
    <input
      id=${id}
      name=${name}
      aria-describedby=${help}
      type=${numeric ? 'number' : 'text'}
      required=${parameter.required !== false}
      maxlength=${parameter.maxLength}
      min=${parameter.min}
      max=${parameter.max}
      step=${numeric ? 1 : undefined}
      value=${value ?? ''}
      onInput=${(e) => onInput(e.target.value === '' ? undefined : numeric ? Number(e.target.value) : e.target.value)}
    />
    <small id=${help}>${`${description}${bounds}${length}`}</small>
  </div>`;
}

/** What a step that did not run says instead of a request, a status and a time. */
const NOT_RUN = {
  not_run: 'not run: an earlier step failed first',
  skipped: 'skipped: its when was false',
};

function Waterfall({ run }) {
  const total = Math.max(1, ...run.steps.map((s) => s.startMs + s.durationMs));
  return html`<table class="waterfall" aria-label="Steps of the run">
    <thead>
      <tr>
        <th>step</th>
        <th>request</th>
        <th>status</th>
        <th>cache</th>
        <th>scope · TTL</th>
        <th>bytes</th>
        <th>time</th>
        <th>result</th>
      </tr>
    </thead>
    <tbody>
      ${run.steps.map((s) =>
        NOT_RUN[s.outcome]
          ? html`<tr data-step=${s.id} class="not-run" data-outcome=${s.outcome}>
              <td>${s.id}<br /><small>${s.operation}</small></td>
              <td colspan="7" class="outcome">${NOT_RUN[s.outcome]}</td>
            </tr>`
          : html`<tr
              data-step=${s.id}
              data-outcome=${s.outcome}
              data-depth=${s.depth ?? 0}
              class=${s.workflow ? 'calls-workflow' : undefined}
            >
              <td style=${`padding-left:${0.5 + 1.25 * (s.depth ?? 0)}em`}>
                ${s.id}<br /><small>${s.workflow ? `workflow ${s.workflow}` : s.operation}</small>
              </td>
              <td>
                <small
                  >${
                    s.request
                      ? `${s.request.method} ${s.request.url}`
                      : s.workflow
                        ? `runs workflow ${s.workflow}: its steps follow`
                        : s.cache === 'hit'
                          ? '(answered by the cache)'
                          : ''
                  }</small
                >
                ${
                  s.request?.body
                    ? html`<details class="request-body">
                        <summary>body</summary>
                        <pre tabindex="0">${s.request.body}</pre>
                      </details>`
                    : null
                }
              </td>
              <td>${s.status ?? ''}</td>
              <td class="cache">${s.cache}</td>
              <td class="cache-policy">
                ${s.cacheScope ? `${s.cacheScope} · ${duration(s.cacheTtlMs)}` : 'not cached'}
              </td>
              <td>${s.response?.bytes ?? ''}</td>
              <td>
                <div class="bar" title=${`${s.durationMs.toFixed(1)} ms`}>
                  <span
                    style=${`left:${(100 * s.startMs) / total}%;width:${Math.max(1, (100 * s.durationMs) / total)}%`}
                  ></span>
                </div>
                ${s.durationMs.toFixed(1)} ms
              </td>
              <td>
                ${
                  s.response?.parsed !== undefined
                    ? html`<details class="parsed-answer">
                        <summary>answer, parsed</summary>
                        <pre tabindex="0">${pretty(s.response.parsed)}</pre>
                      </details>`
                    : null
                }
                <details>
                  <summary>value</summary>
                  <pre tabindex="0">${pretty(s.result)}</pre>
                </details>
              </td>
            </tr>`,
      )}
      ${
        run.projection
          ? html`<tr data-step="output">
              <td>output<br /><small>the output projection</small></td>
              <td colspan="6">
                <small
                  >${
                    run.workflow
                      ? "evaluated over the inputs and the workflow's outputs"
                      : "evaluated over the inputs and the steps' results"
                  }</small
                >
              </td>
              <td>
                ${
                  run.projection.error
                    ? html`<span class="error">${run.projection.error}</span>`
                    : html`<pre tabindex="0" id="projection-value">${pretty(run.projection.value)}</pre>`
                }
              </td>
            </tr>`
          : null
      }
    </tbody>
  </table>`;
}

/** Where an error is: the line of the expression with a caret under its column. */
function Position({ source, error }) {
  if (!error.line) return null;
  const line = source.split('\n')[error.line - 1] ?? '';
  const caret = `${' '.repeat(Math.max(0, error.column - 1))}^`;
  return html`<pre id="playground-position" aria-label="Where the error is">${`${line}\n${caret}`}</pre>`;
}

function Playground({ run, tool }) {
  const [target, setTarget] = useState('output');
  const [expression, setExpression] = useState(tool.output);
  const [answer, setAnswer] = useState(undefined);
  useEffect(() => {
    const [kind, id] = target.split(':');
    setExpression(
      target === 'output'
        ? tool.output
        : (tool.stepExpressions[id]?.[kind] ?? (kind === 'params' ? '{}' : '$')),
    );
  }, [target, tool]);
  useEffect(() => {
    const timer = setTimeout(
      async () => setAnswer(await api('evaluate', { run: run.id, target, expression })),
      200,
    );
    return () => clearTimeout(timer);
  }, [expression, target, run.id]);
  return html`<div id="playground">
    <label for="playground-target"
      >Expression of
      <select id="playground-target" value=${target} onChange=${(e) => setTarget(e.target.value)}>
        <option value="output">the output</option>
        ${tool.steps.map(
          (s) =>
            html`<option value=${`params:${s.id}`}>step ${s.id}: params</option>
              <option value=${`result:${s.id}`}>step ${s.id}: result</option>`,
        )}
      </select></label
    >
    <label for="playground-expression" style="display:block">JSONata</label>
    <textarea
      id="playground-expression"
      value=${expression}
      onInput=${(e) => setExpression(e.target.value)}
    ></textarea>
    ${
      answer?.error
        ? html`<div>
            <p class="error" id="playground-error">
              ${answer.error.code ?? ''}
              ${answer.error.message}${answer.error.line ? html` <span id="playground-at">(line ${answer.error.line}, column ${answer.error.column})</span>` : ''}
            </p>
            <${Position} source=${expression} error=${answer.error} />
          </div>`
        : html`<pre tabindex="0" id="playground-value">${pretty(answer?.value)}</pre>`
    }
  </div>`;
}

/** One side of a row of the side-by-side signatures: line number and text, marked when it changed. */
function Side({ kind, side, line }) {
  if (!line)
    return html`<td class="num"></td>
      <td class="text"></td>`;
  const mark = kind === 'same' ? '' : side === 'left' ? '−' : '+';
  const text = mark
    ? side === 'left'
      ? html`<del><span class="mark" aria-hidden="true">${mark}</span>${line.text}</del>`
      : html`<ins><span class="mark" aria-hidden="true">${mark}</span>${line.text}</ins>`
    : line.text;
  return html`<td class="num">${line.line}</td>
    <td class="text">${text}</td>`;
}

/** Unchanged lines kept around each change; longer unchanged runs fold behind a button. */
const CONTEXT = 3;

/**
 * The two signatures side by side, changed lines marked, and the unchanged runs far from any
 * change folded (as a unified diff keeps only context), so every change is in view.
 */
function SideBySide({ diff }) {
  const [opened, setOpened] = useState([]);
  const { rows } = diff;
  const near = rows.map((_, i) =>
    rows.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((r) => r.kind !== 'same'),
  );
  const body = [];
  const row = (r) =>
    html`<tr class=${r.kind} data-kind=${r.kind}>
      <${Side} kind=${r.kind} side="left" line=${r.left} />
      <${Side} kind=${r.kind} side="right" line=${r.right} />
    </tr>`;
  for (let i = 0; i < rows.length;) {
    if (near[i]) {
      body.push(row(rows[i++]));
      continue;
    }
    let j = i;
    while (j < rows.length && !near[j]) j++;
    const start = i;
    // A fold of one or two lines would cost as much room as the lines.
    if (opened.includes(start) || j - start <= 2) body.push(...rows.slice(start, j).map(row));
    else {
      body.push(
        html`<tr class="fold">
          <td colspan="4">
            <button type="button" onClick=${() => setOpened([...opened, start])}>
              ⋯ show ${j - start} unchanged lines
            </button>
          </td>
        </tr>`,
      );
    }
    i = j;
  }
  return html`<table
    class="side-by-side"
    aria-label=${`Signatures of versions ${diff.from.version} and ${diff.to.version}, side by side`}
  >
    <colgroup>
      <col class="num" />
      <col />
      <col class="num" />
      <col />
    </colgroup>
    <thead>
      <tr>
        <th colspan="2" scope="col">version ${diff.from.version} <small>${diff.from.file}</small></th>
        <th colspan="2" scope="col">version ${diff.to.version} <small>${diff.to.file}</small></th>
      </tr>
    </thead>
    <tbody>
      ${body}
    </tbody>
  </table>`;
}

/**
 * The versions a designer chose to compare, by tool: the panel is built anew on every save (the
 * tool is reloaded), and the choice must survive it. An end left unchosen follows the defaults,
 * so a newly saved version shows at once.
 */
const chosenVersions = new Map();

/**
 * Any two versions of the tool compared by the server as `sculptor diff` compares them: the
 * A2T §5.4 verdict, the changes and breaks as the command prints them, and the two signatures
 * side by side with the changed lines marked.
 */
function Versions({ name }) {
  const [choice, setChosen] = useState(chosenVersions.get(name) ?? {});
  const setChoice = (next) => {
    chosenVersions.set(name, next);
    setChosen(next);
  };
  const [diff, setDiff] = useState(undefined);
  useEffect(() => {
    const query = ['from', 'to'].flatMap((k) => (choice[k] === undefined ? [] : [`${k}=${choice[k]}`]));
    api(`tools/${encodeURIComponent(name)}/diff?${query.join('&')}`).then(setDiff);
  }, [name, choice.from, choice.to]);
  if (!diff || diff.error) return null;
  const only = diff.versions.length < 2;
  const pick = (end, label, value) =>
    html`<label for=${`diff-${end}`}
      >${label}
      <select
        id=${`diff-${end}`}
        value=${value ?? ''}
        onChange=${(e) => setChoice({ ...choice, [end]: Number(e.target.value) })}
      >
        ${diff.versions.map((v) => html`<option value=${v}>${v}</option>`)}
      </select></label
    >`;
  return html`<section id="versions" aria-labelledby="versions-heading">
    <h2 id="versions-heading">Versions</h2>
    ${
      only
        ? html`<p>
            Only version ${diff.versions[0]}: write a version ${diff.versions[0] + 1} of the sculpt to compare
            them here.
          </p>`
        : html`<p class="versions-pick">
              ${pick('from', 'Compare version', diff.from?.version ?? choice.from)}
              ${pick('to', 'with version', diff.to?.version ?? choice.to)}
            </p>
            ${
              diff.problem
                ? html`<p class="error" id="versions-problem">${diff.problem}</p>`
                : html`<p id="versions-verdict" class=${diff.compatible ? 'ok' : 'error'}>
                      ${diff.compatible ? 'Compatible (A2T §5.4)' : 'Breaks A2T §5.4'}
                    </p>
                    <${SideBySide} key=${`${diff.from.version}-${diff.to.version}`} diff=${diff} />
                    <h3 id="versions-diff-heading">As <code>sculptor diff</code> prints it</h3>
                    <pre tabindex="0" id="versions-diff">${diff.text}</pre>`
            }`
    }
  </section>`;
}

/** The run form, the result, the trace, the playground and "save as test", for one version of a tool. */
function RunPanel({ name, version, tool }) {
  const [inputs, setInputs] = useState({});
  const [mode, setMode] = useState('recordings');
  const [run, setRun] = useState(undefined);
  const [saved, setSaved] = useState(undefined);
  useEffect(() => {
    setRun(undefined);
    setSaved(undefined);
  }, [name, version]);
  const submit = async (e) => {
    e.preventDefault();
    setSaved(undefined);
    setRun(await api('run', { tool: name, version, inputs, mode }));
  };
  const save = async () =>
    setSaved(await api('save-test', { run: run.id, name: `${name}: ${JSON.stringify(run.inputs)}` }));
  const parameters = tool.signature.input_parameters ?? [];
  return html`<form class="run" onSubmit=${submit}>
      ${parameters.length === 0 ? html`<p>This tool takes no input.</p>` : null}
      ${parameters.map(
        (p) =>
          html`<${Field}
            parameter=${p}
            value=${inputs[p.name]}
            onInput=${(v) => setInputs({ ...inputs, [p.name]: v })}
          />`,
      )}
      <div class="field">
        <label for="mode">against</label>
        <select id="mode" value=${mode} onChange=${(e) => setMode(e.target.value)}>
          <option value="recordings">the recordings</option>
          <option value="live">the live backends</option>
        </select>
      </div>
      <button class="primary" type="submit">Run</button>
    </form>
    ${run?.error && !run.steps ? html`<p class="error" id="run-problem">${run.error.message}</p>` : null}
    ${
      run?.steps
        ? html`<h3 id="result-heading">Result <small>${run.durationMs.toFixed(1)} ms</small></h3>
            ${run.error ? html`<p class="error" id="run-error">${run.error.code}: ${run.error.message}</p>` : html`<pre tabindex="0" id="run-output">${pretty(run.outputs)}</pre>`}
            <h3>Trace</h3>
            <${Waterfall} run=${run} />
            <h3>Mapping playground</h3>
            <${Playground} run=${run} tool=${tool} />
            ${
              run.error
                ? html`<p id="save-hint">
                    <small>A run that failed cannot be saved as a test: fix it, run again.</small>
                  </p>`
                : html`<h3>Save as test</h3>
                    <button type="button" class="primary" onClick=${save}>Save this run as a test</button>
                    ${saved ? html`<p id="saved" class=${saved.error ? 'error' : 'ok'}>${saved.error ? saved.error.message : `Saved to ${saved.testFile} with ${saved.recording}`}</p>` : null}`
            }`
        : null
    }`;
}

/**
 * A tool's panels, in the order a designer uses them: run it first, then read what the LLM sees,
 * then compare versions. One entry each: a panel added here gets its tab, its URL and its place.
 */
const PANELS = [
  { id: 'run', title: 'Run', render: (p) => html`<${RunPanel} ...${p} />` },
  {
    id: 'llm',
    title: 'What the LLM sees',
    render: ({ tool }) => html`<${Views} views=${tool.views} tokenRule=${tool.tokenRule} />`,
  },
  // Versions writes its own heading (its section is also what the screenshots frame).
  {
    id: 'versions',
    title: 'Versions',
    ownHeading: true,
    render: ({ name }) => html`<${Versions} name=${name} />`,
  },
  // Its own module (try-model.js) and heading: the model's call, its validity, run and trace.
  {
    id: 'model',
    title: 'Try with a model',
    ownHeading: true,
    render: ({ name, version, tool }) =>
      html`<${TryModel} name=${name} version=${version} tool=${tool} api=${api} Trace=${Waterfall} />`,
  },
];

function Tool({ name, versions, version, panel, go }) {
  const [tool, setTool] = useState(undefined);
  const shown = versions.includes(version) ? version : versions.at(-1);
  const current = PANELS.find((p) => p.id === panel) ?? PANELS[0];
  useEffect(() => {
    setTool(undefined);
    api(`tools/${encodeURIComponent(name)}?version=${shown}`).then(setTool);
  }, [name, shown]);
  if (!tool) return html`<p>Loading ${name}…</p>`;
  return html`<article>
    <div class="tool-heading">
      <h2 id="tool-heading">${name}</h2>
      <label for="version">Version</label>
      <select
        id="version"
        value=${shown}
        onChange=${(e) => go({ tool: name, version: Number(e.target.value), panel: current.id })}
      >
        ${versions.map((v) => html`<option value=${v}>${v}</option>`)}
      </select>
    </div>
    <p class="tool-description">${tool.signature.description}</p>
    <div role="tablist" aria-label="Panels of the tool" class="panels">
      ${PANELS.map(
        (p) =>
          html`<a
            role="tab"
            id=${`tab-${p.id}`}
            aria-selected=${String(p.id === current.id)}
            aria-controls=${`panel-${p.id}`}
            href=${toolHash({ tool: name, version: shown, panel: p.id })}
            >${p.title}</a
          >`,
      )}
    </div>
    ${PANELS.map(
      // Every panel stays mounted, hidden when another is chosen: a run survives a look at the views.
      (p) =>
        html`<section
          id=${`panel-${p.id}`}
          role="tabpanel"
          aria-labelledby=${`tab-${p.id}`}
          hidden=${p.id !== current.id}
        >
          ${p.ownHeading ? null : html`<h2>${p.title}</h2>`} ${p.render({ name, version: shown, tool })}
        </section>`,
    )}
  </article>`;
}

/** `#/tools/NAME?version=2&panel=llm`: every tool, version and panel has its own URL. */
function toolHash({ tool, version, panel }) {
  const query = [version ? `version=${version}` : '', panel && panel !== 'run' ? `panel=${panel}` : '']
    .filter(Boolean)
    .join('&');
  return `#/tools/${encodeURIComponent(tool)}${query ? `?${query}` : ''}`;
}

function readHash() {
  const match = /^#\/tools\/([^?]+)(?:\?(.*))?$/.exec(window.location.hash);
  if (!match) return {};
  const query = new window.URLSearchParams(match[2] ?? '');
  const version = Number(query.get('version'));
  return {
    tool: decodeURIComponent(match[1]),
    ...(Number.isSafeInteger(version) && version > 0 ? { version } : {}),
    panel: query.get('panel') ?? 'run',
  };
}

function Studio() {
  const [signedIn, setSignedIn] = useState(undefined);
  useEffect(() => {
    onUnauthenticated = () => {
      window.sessionStorage.removeItem(TOKEN_KEY);
      setSignedIn(false);
    };
    api('auth').then((a) => setSignedIn(!a.guarded || Boolean(token())));
  }, []);
  if (signedIn === undefined) return html`<p>Loading…</p>`;
  if (!signedIn) return html`<${SignIn} onDone=${() => setSignedIn(true)} />`;
  return html`<${Workbench} />`;
}

function Workbench() {
  const [catalog, setCatalog] = useState(undefined);
  const [query, setQuery] = useState('');
  const [route, setRoute] = useState(readHash());
  useEffect(() => {
    const follow = () => setRoute(readHash());
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const go = (next) => {
    window.location.hash = toolHash(next);
  };
  const selected = route.tool;
  useEffect(() => {
    let generation = 0;
    const refresh = async () => {
      const now = await api('generation');
      if (now.generation !== generation) {
        generation = now.generation;
        setCatalog(await api('catalog'));
      }
    };
    refresh();
    const timer = setInterval(refresh, 1000);
    return () => clearInterval(timer);
  }, []);
  if (!catalog) return html`<p>Loading…</p>`;
  const shown = catalog.tools.filter((t) =>
    `${t.name} ${t.description}`.toLowerCase().includes(query.toLowerCase()),
  );
  const current = catalog.tools.find((t) => t.name === selected);
  return html`<header>
      <h1>Sculptor Studio</h1>
      <span>${catalog.dir}</span>
    </header>
    <main>
      <nav aria-label="Tools">
        <label for="search">Search tools</label>
        <input id="search" type="search" value=${query} onInput=${(e) => setQuery(e.target.value)} />
        <ul>
          ${shown.map(
            (t) =>
              html`<li>
                <a
                  href=${toolHash({ tool: t.name })}
                  aria-current=${t.name === selected ? 'page' : undefined}
                >
                  ${t.name} <small>v${t.versions.join(', v')}</small>
                </a>
              </li>`,
          )}
        </ul>
      </nav>
      <section class="content">
        <details class="problems" open=${catalog.findings.length > 0}>
          <summary><h2>Problems in ${catalog.dir}</h2></summary>
          <${Findings} findings=${catalog.findings} />
        </details>
        ${
          current
            ? html`<${Tool}
                key=${`${current.name}:${catalog.generation}`}
                name=${current.name}
                versions=${current.versions}
                version=${route.version}
                panel=${route.panel}
                go=${go}
              />`
            : html`<p>
                ${selected ? `There is no tool '${selected}' in ${catalog.dir}.` : 'Choose a tool.'}
              </p>`
        }
      </section>
    </main>`;
}

render(html`<${Studio} />`, document.getElementById('app'));
