// The explorer's page (streamjoin explore): asks the server for the state a
// path reaches and draws it: the nodes and the sink, the enabled actions
// (click one to take it), the refused ones with the model's reason, the
// properties' verdicts. Back and forward move along the path; the URL holds
// the model and the path, so a state can be shared.

(() => {
  const { el, tree, cluster } = SJ;
  const data = JSON.parse(document.getElementById('explore-data').textContent);
  const $ = (id) => document.getElementById(id);
  let spec = data.start.spec;
  let path = data.start.path;
  let future = [];
  let previous;

  function fromHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    try {
      if (h.has('spec')) spec = JSON.parse(h.get('spec'));
      if (h.has('path')) path = JSON.parse(h.get('path'));
    } catch {
      $('error').textContent = 'the URL does not hold a model and a path; starting over';
    }
  }

  function changedPaths(a, b, at = '') {
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      return [...keys].flatMap((k) => changedPaths(a[k], b[k], `${at}/${SJ.escapePointer(k)}`));
    }
    return JSON.stringify(a) === JSON.stringify(b) ? [] : [at || '/'];
  }

  async function post(url, body) {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const json = await r.json();
    if (!r.ok) throw new Error(json.error ?? `HTTP ${r.status}`);
    return json;
  }

  async function load() {
    $('error').textContent = '';
    let snap;
    try {
      snap = await post('/api/state', JSON.stringify({ spec, path }));
    } catch (e) {
      $('error').textContent = String(e.message);
      return;
    }
    if (snap.stoppedAt) {
      $('error').textContent = `step ${snap.stoppedAt.index + 1} of the path is not enabled here: ${snap.stoppedAt.why}`;
      path = snap.path.map((p) => p.action);
    }
    history.replaceState(null, '', `#spec=${encodeURIComponent(JSON.stringify(spec))}&path=${encodeURIComponent(JSON.stringify(path))}`);
    render(snap);
    document.body.dataset.ready = String(path.length);
  }

  function take(action) {
    path = [...path, action];
    future = [];
    previous = current;
    return load();
  }

  let current;
  function render(snap) {
    $('model').textContent = `${snap.model}`;
    const select = $('preset');
    if ('preset' in snap.spec) select.value = snap.spec.preset;
    else select.value = '';
    $('where').textContent = path.length === 0 ? 'initial state' : `after ${path.length} step(s)`;
    const list = $('path');
    list.replaceChildren(
      ...snap.path.map((p, i) =>
        el(
          'li',
          { class: i === snap.path.length - 1 ? 'last' : '' },
          el(
            'a',
            {
              href: '#',
              onclick: (e) => {
                e.preventDefault();
                future = [...path.slice(i + 1), ...future];
                path = path.slice(0, i + 1);
                void load();
              },
            },
            p.text,
          ),
        ),
      ),
    );
    const state = snap.state;
    const before = current;
    current = state;
    const changed = new Set(before === undefined || previous === undefined ? [] : changedPaths(previous, state));
    previous = undefined;
    const picture = $('picture');
    picture.replaceChildren();
    if (state?.observation) {
      const obsChanged = new Set([...changed].filter((p) => p.startsWith('/observation')).map((p) => p.slice('/observation'.length)));
      picture.append(cluster(state.observation, obsChanged));
      if (state.violation) picture.append(el('div', { class: 'violation' }, state.violation));
    }
    $('state').replaceChildren(tree(state, changed));
    $('properties').replaceChildren(
      ...snap.properties.map((p) =>
        el(
          'li',
          { class: `prop ${p.verdict.replace(' ', '-')}`, 'data-name': p.name },
          el('span', { class: 'verdict' }, p.verdict),
          ` ${p.kind === 'goal' ? 'goal ' : ''}${p.name}`,
          p.explanation ? el('div', { class: 'why' }, p.explanation) : '',
        ),
      ),
    );
    $('enabled').replaceChildren(
      ...(snap.enabled.length === 0 ? [el('p', { class: 'quiet' }, 'no action is enabled (a deadlock, or the end of the bound)')] : []),
      ...snap.enabled.map((a) =>
        el('button', { class: 'action', onclick: () => take(a.action), 'data-action': JSON.stringify(a.action) }, a.text),
      ),
    );
    $('refused-count').textContent = String(snap.refused.length);
    $('refused').replaceChildren(
      ...snap.refused.map((a) => el('li', {}, el('code', {}, a.text), ' — ', el('span', { class: 'why' }, a.why))),
    );
    $('back').disabled = path.length === 0;
    $('forward').disabled = future.length === 0;
  }

  function back() {
    if (path.length === 0) return;
    future = [path[path.length - 1], ...future];
    path = path.slice(0, -1);
    void load();
  }
  function forward() {
    if (future.length === 0) return;
    previous = current;
    path = [...path, future[0]];
    future = future.slice(1);
    void load();
  }

  const select = $('preset');
  select.append(
    el('option', { value: '' }, '(a loaded trace)'),
    ...data.presets.map((p) => el('option', { value: p.name, title: p.description }, p.name)),
  );
  select.addEventListener('change', () => {
    if (select.value === '') return;
    spec = { preset: select.value };
    path = [];
    future = [];
    void load();
  });
  $('file').addEventListener('change', async () => {
    const f = $('file').files[0];
    if (!f) return;
    try {
      const loaded = await post(`/api/load?name=${encodeURIComponent(f.name)}`, await f.text());
      spec = loaded.spec;
      future = loaded.path;
      path = [];
      await load();
    } catch (e) {
      $('error').textContent = String(e.message);
    }
  });
  $('back').addEventListener('click', back);
  $('forward').addEventListener('click', forward);
  $('reset').addEventListener('click', () => {
    future = [...path, ...future];
    path = [];
    void load();
  });
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLSelectElement || (e.target instanceof HTMLInputElement && e.target.type !== 'range')) return;
    if (e.key === 'ArrowLeft' || e.key === 'k') back();
    else if (e.key === 'ArrowRight' || e.key === 'j') forward();
    else if (e.key === 'Home') $('reset').click();
  });
  fromHash();
  void load();
})();
