// "Try with a model": a request to the model of SCULPTOR_EVAL_URL with the folder's tools, the call it
// made, and the run of that call; "save as scenario" writes what the designer expects, not what the
// model did. A module of its own: the Studio page renders it for the selected tool.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);
/** One string: htm drops the whitespace of a template's line breaks. */
const usage = (r) =>
  `${r.offered.tools} tool(s) offered, ${r.offered.characters} characters; ${r.usage.promptTokens ?? '?'} prompt and ${r.usage.completionTokens ?? '?'} completion tokens; ${Math.round(r.latencyMs)} ms`;
const pretty = (value) => (value === undefined ? '(nothing)' : JSON.stringify(value, null, 2));

/** One expected value per input: typed by the designer, blank meaning "may appear with any value". */
function Expected({ parameter, value, onInput }) {
  const { name, type } = parameter;
  const id = `expect-${name}`;
  if (type === 'enum' || type === 'boolean') {
    const values =
      type === 'boolean' ? ['true', 'false'] : (parameter['allowed-values'] ?? []).map((v) => v.name);
    return html`<label for=${id}
      >${name}
      <select
        id=${id}
        value=${value === undefined ? '' : String(value)}
        onChange=${(e) => onInput(e.target.value === '' ? undefined : type === 'boolean' ? e.target.value === 'true' : e.target.value)}
      >
        <option value="">(any value)</option>
        ${values.map((v) => html`<option value=${v}>${v}</option>`)}
      </select></label
    >`;
  }
  const numeric = type === 'int';
  return html`<label for=${id}
    >${name}
    <input
      id=${id}
      type=${numeric ? 'number' : 'text'}
      step=${numeric ? 1 : undefined}
      placeholder="(any value)"
      value=${value ?? ''}
      onInput=${(e) => onInput(e.target.value === '' ? undefined : numeric ? Number(e.target.value) : e.target.value)}
  /></label>`;
}

export function TryModel({ name, version, tool, api, Trace }) {
  const [status, setStatus] = useState(undefined);
  const [request, setRequest] = useState('');
  const [face, setFace] = useState('mcp');
  const [mode, setMode] = useState('recordings');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState(undefined);
  const [expected, setExpected] = useState({});
  const [scenarioName, setScenarioName] = useState('');
  const [saved, setSaved] = useState(undefined);
  useEffect(() => {
    api('try').then(setStatus);
  }, []);
  const ask = async (e) => {
    e.preventDefault();
    setBusy(true);
    setSaved(undefined);
    try {
      setResult({ ...(await api('try', { tool: name, version, request, face, mode })), request });
    } finally {
      setBusy(false);
    }
  };
  const save = async (e) => {
    e.preventDefault();
    setSaved(
      await api('save-scenario', {
        tool: name,
        version,
        name: scenarioName,
        request: result.request,
        arguments: expected,
      }),
    );
  };
  const heading = html`<h2 id="try-model-heading">Try with a model</h2>`;
  if (!status) return null;
  if (!status.configured) {
    return html`<section id="try-model" aria-labelledby="try-model-heading">
      ${heading}
      <p id="try-unconfigured">
        No model is configured: start the Studio with SCULPTOR_EVAL_URL and SCULPTOR_EVAL_MODEL set (and
        SCULPTOR_EVAL_API_KEY when the endpoint needs a key), e.g. a local Ollama at
        http://127.0.0.1:11434/v1.
      </p>
    </section>`;
  }
  const parameters = tool.signature.input_parameters ?? [];
  return html`<section id="try-model" aria-labelledby="try-model-heading">
    ${heading}
    <p>
      <small
        >${status.model} at ${status.endpoint}, offered this folder's tools (${name} at version ${version}) as
        a face lists them.</small
      >
    </p>
    <form class="run" id="try-form" onSubmit=${ask}>
      <label for="try-request"
        >Request, in a user's words
        <textarea
          id="try-request"
          required
          value=${request}
          onInput=${(e) => setRequest(e.target.value)}
        ></textarea>
      </label>
      <label for="try-face"
        >offered as
        <select id="try-face" value=${face} onChange=${(e) => setFace(e.target.value)}>
          <option value="mcp">MCP tools/list</option>
          <option value="openai">the OpenAI export (strict)</option>
        </select></label
      >
      <label for="try-mode"
        >the call run against
        <select id="try-mode" value=${mode} onChange=${(e) => setMode(e.target.value)}>
          <option value="recordings">the recordings</option>
          <option value="live">the live backends</option>
        </select></label
      >
      <button class="primary" type="submit" disabled=${busy}>${busy ? 'Asking…' : 'Ask the model'}</button>
    </form>
    ${result?.error ? html`<p class="error" id="try-error">${result.error.code}: ${result.error.message}</p>` : null}
    ${
      result && !result.error
        ? html`<div id="try-result">
            <p>
              <small>${usage(result)}</small>
            </p>
            ${
              result.calls.length === 0
                ? html`<p id="try-answer">
                    The model called no tool. It answered: ${JSON.stringify(result.answer ?? '')}
                  </p>`
                : result.calls.map(
                    (call, i) =>
                      html`<div class="try-call" data-call=${i}>
                        <h3>
                          ${'The model called '}<code>${call.tool}</code>${call.tool === name ? '' : ` (not ${name})`}
                        </h3>
                        <pre
                          tabindex="0"
                          class="try-arguments"
                          aria-label="Its arguments, as the model wrote them"
                        >
${call.rawArguments}</pre>
                        <p class=${call.valid ? 'ok try-validity' : 'error try-validity'}>
                          ${
                            call.valid
                              ? 'The arguments validate against the schema the tool was offered with.'
                              : `The arguments do not validate: ${call.problems.join('; ')}.`
                          }
                        </p>
                      </div>`,
                  )
            }
            ${
              result.run
                ? html`<h3>What the call gave <small>${result.run.durationMs.toFixed(1)} ms</small></h3>
                    ${
                      result.run.error
                        ? html`<p class="error" id="try-run-error">
                            ${result.run.error.code}: ${result.run.error.message}
                          </p>`
                        : html`<pre tabindex="0" id="try-run-output">${pretty(result.run.outputs)}</pre>`
                    }
                    <h3>Its trace</h3>
                    <${Trace} run=${result.run} />`
                : null
            }
            <h3>Save as scenario</h3>
            <form class="run" id="save-scenario" onSubmit=${save}>
              <p>
                The scenario expects a call of <code>${name}</code> with the values you type (left blank: any
                value may appear). The model's call is not copied: the expected answer is yours.
              </p>
              ${parameters.map(
                (p) =>
                  html`<${Expected}
                    parameter=${p}
                    value=${expected[p.name]}
                    onInput=${(v) => setExpected({ ...expected, [p.name]: v })}
                  />`,
              )}
              <label for="scenario-name"
                >Scenario name
                <input
                  id="scenario-name"
                  type="text"
                  placeholder=${result.request.slice(0, 80)}
                  value=${scenarioName}
                  onInput=${(e) => setScenarioName(e.target.value)}
              /></label>
              <button class="primary" type="submit">Save as scenario</button>
            </form>
            ${
              saved
                ? html`<p id="try-saved" class=${saved.error ? 'error' : 'ok'}>
                    ${saved.error ? saved.error.message : `Saved "${saved.scenario}" to ${saved.file}: run it with sculptor eval.`}
                  </p>`
                : null
            }
          </div>`
        : null
    }
  </section>`;
}
