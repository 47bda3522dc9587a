// Sculptor Studio (issue #17): Preact components written with htm, no build step.
import { h, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);
const api = async (path, body) => {
  const res = await fetch(
    `/studio/api/${path}`,
    body === undefined
      ? {}
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
  );
  return res.json();
};
const pretty = (value) => (value === undefined ? '(nothing)' : JSON.stringify(value, null, 2));

function Findings({ findings }) {
  if (findings.length === 0) return html`<p class="ok">No errors or warnings.</p>`;
  return html`<ul class="findings">
    ${findings.map(
      (f) =>
        html`<li class=${f.severity}>
          ${f.file ? `${f.file}:${f.line}:${f.column} ` : ''}${f.code}
          ${f.severity === 'warning' ? 'warning: ' : ''}${f.message}
        </li>`,
    )}
  </ul>`;
}

function Views({ views }) {
  return html`<div class="views">
    ${views.map(
      (v) =>
        html`<div class="view" data-consumer=${v.consumer}>
          <h3>${v.consumer} <small>${v.characters} characters, ~${v.tokens} tokens</small></h3>
          ${v.problem ? html`<p class="error">Refused: ${v.problem}</p>` : html`<pre tabindex="0">${v.text}</pre>`}
        </div>`,
    )}
  </div>`;
}

/** An input field from the signature: enums as choices, bounds enforced by the browser. */
function Field({ parameter, value, onInput }) {
  const { name, type, description } = parameter;
  const id = `input-${name}`;
  const label = html`<span>${name}${parameter.required === false ? ' (optional)' : ''}</span>`;
  if (type === 'enum') {
    const values = (parameter['allowed-values'] ?? []).map((v) => v.name);
    return html`<label for=${id}
      >${label}
      <select
        id=${id}
        name=${name}
        value=${value ?? ''}
        onChange=${(e) => onInput(e.target.value || undefined)}
      >
        ${parameter.required === false ? html`<option value="">(leave out)</option>` : null}
        ${values.map((v) => html`<option value=${v}>${v}</option>`)}
      </select>
      <small> ${description}</small></label
    >`;
  }
  const numeric = type === 'int';
  return html`<label for=${id}
    >${label}
    <input
      id=${id}
      name=${name}
      type=${numeric ? 'number' : 'text'}
      required=${parameter.required !== false}
      maxlength=${parameter.maxLength}
      min=${parameter.min}
      max=${parameter.max}
      step=${numeric ? 1 : undefined}
      value=${value ?? ''}
      onInput=${(e) => onInput(e.target.value === '' ? undefined : numeric ? Number(e.target.value) : e.target.value)}
    />
    <small> ${description}</small></label
  >`;
}

function Waterfall({ run }) {
  const total = Math.max(1, ...run.steps.map((s) => s.startMs + s.durationMs));
  return html`<table class="waterfall" aria-label="Steps of the run">
    <thead>
      <tr>
        <th>step</th>
        <th>request</th>
        <th>status</th>
        <th>cache</th>
        <th>bytes</th>
        <th>time</th>
        <th>result</th>
      </tr>
    </thead>
    <tbody>
      ${run.steps.map(
        (s) =>
          html`<tr data-step=${s.id}>
            <td>${s.id}<br /><small>${s.operation}</small></td>
            <td><small>${s.request ? `${s.request.method} ${s.request.url}` : '(cache)'}</small></td>
            <td>${s.status ?? ''}</td>
            <td class="cache">${s.cache}</td>
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
              <details>
                <summary>value</summary>
                <pre tabindex="0">${pretty(s.result)}</pre>
              </details>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function Playground({ run, tool }) {
  const [target, setTarget] = useState('output');
  const [expression, setExpression] = useState(tool.output);
  const [answer, setAnswer] = useState(undefined);
  useEffect(() => {
    setExpression(target === 'output' ? tool.output : (tool.stepExpressions[target.slice(5)]?.result ?? '$'));
  }, [target, tool]);
  useEffect(() => {
    const timer = setTimeout(
      async () => setAnswer(await api('evaluate', { run: run.id, target, expression })),
      200,
    );
    return () => clearTimeout(timer);
  }, [expression, target, run.id]);
  return html`<div>
    <label for="playground-target"
      >Expression of
      <select id="playground-target" value=${target} onChange=${(e) => setTarget(e.target.value)}>
        <option value="output">the output</option>
        ${tool.steps.map((s) => html`<option value=${`step:${s.id}`}>step ${s.id}: result</option>`)}
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
        ? html`<p class="error" id="playground-error">
            ${answer.error.code ?? ''}
            ${answer.error.message}${answer.error.column ? ` (at column ${answer.error.column})` : ''}
          </p>`
        : html`<pre tabindex="0" id="playground-value">${pretty(answer?.value)}</pre>`
    }
  </div>`;
}

function Tool({ name, versions }) {
  const [version, setVersion] = useState(versions.at(-1));
  const [tool, setTool] = useState(undefined);
  const [inputs, setInputs] = useState({});
  const [mode, setMode] = useState('recordings');
  const [run, setRun] = useState(undefined);
  const [diff, setDiff] = useState(undefined);
  const [saved, setSaved] = useState(undefined);
  useEffect(() => {
    api(`tools/${encodeURIComponent(name)}?version=${version}`).then(setTool);
    setRun(undefined);
    setSaved(undefined);
    if (version > 1)
      api(`tools/${encodeURIComponent(name)}/diff?from=${version - 1}&to=${version}`).then(setDiff);
    else setDiff(undefined);
  }, [name, version]);
  if (!tool) return html`<p>Loading ${name}…</p>`;
  const submit = async (e) => {
    e.preventDefault();
    setSaved(undefined);
    setRun(await api('run', { tool: name, version, inputs, mode }));
  };
  const save = async () =>
    setSaved(await api('save-test', { run: run.id, name: `${name}: ${JSON.stringify(run.inputs)}` }));
  return html`<article>
    <h2>
      ${name}
      <label for="version">
        — version
        <select id="version" value=${version} onChange=${(e) => setVersion(Number(e.target.value))}>
          ${versions.map((v) => html`<option value=${v}>${v}</option>`)}
        </select></label
      >
    </h2>
    <p>${tool.signature.description}</p>
    <h2>What the LLM sees</h2>
    <${Views} views=${tool.views} />
    ${
      diff
        ? html`<h2>Versions ${version - 1} → ${version}</h2>
            <p class=${diff.compatible === false ? 'error' : 'ok'}>
              ${diff.compatible === false ? 'Breaks A2T §5.4' : 'Compatible (A2T §5.4)'}
            </p>
            <pre tabindex="0">${diff.text}</pre>`
        : null
    }
    <h2>Run</h2>
    <form class="run" onSubmit=${submit}>
      ${(tool.signature.input_parameters ?? []).map(
        (p) =>
          html`<${Field}
            parameter=${p}
            value=${inputs[p.name]}
            onInput=${(v) => setInputs({ ...inputs, [p.name]: v })}
          />`,
      )}
      <label for="mode"
        >against
        <select id="mode" value=${mode} onChange=${(e) => setMode(e.target.value)}>
          <option value="recordings">the recordings</option>
          <option value="live">the live backends</option>
        </select></label
      >
      <button class="primary" type="submit">Run</button>
    </form>
    ${run?.error && !run.steps ? html`<p class="error">${run.error.message}</p>` : null}
    ${
      run?.steps
        ? html`<h2>Result <small>${run.durationMs.toFixed(1)} ms</small></h2>
            ${run.error ? html`<p class="error" id="run-error">${run.error.code}: ${run.error.message}</p>` : html`<pre tabindex="0" id="run-output">${pretty(run.outputs)}</pre>`}
            <h2>Trace</h2>
            <${Waterfall} run=${run} />
            <h2>Mapping playground</h2>
            <${Playground} run=${run} tool=${tool} />
            <h2>Save as test</h2>
            <button type="button" class="primary" onClick=${save}>Save this run as a test</button>
            ${saved ? html`<p id="saved" class=${saved.error ? 'error' : 'ok'}>${saved.error ? saved.error.message : `Saved to ${saved.testFile} with ${saved.recording}`}</p>` : null}`
        : null
    }
  </article>`;
}

function Studio() {
  const [catalog, setCatalog] = useState(undefined);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(undefined);
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
                <button
                  type="button"
                  aria-current=${String(t.name === selected)}
                  onClick=${() => setSelected(t.name)}
                >
                  ${t.name} <small>v${t.versions.join(', v')}</small>
                </button>
              </li>`,
          )}
        </ul>
      </nav>
      <section class="content">
        <h2>Problems in ${catalog.dir}</h2>
        <${Findings} findings=${catalog.findings} />
        ${current ? html`<${Tool} key=${`${current.name}:${catalog.generation}`} name=${current.name} versions=${current.versions} />` : html`<p>Choose a tool.</p>`}
      </section>
    </main>`;
}

render(html`<${Studio} />`, document.getElementById('app'));
