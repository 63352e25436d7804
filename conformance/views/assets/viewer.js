// The counterexample viewer (NAME.html): reads the view embedded in the page
// (a JSON script element) and shows it step by step: a slider and the
// keyboard move through the steps; each step shows its action, what the
// model did, the state after it with the fields that changed highlighted,
// and the cluster as boxes; the divergence shows expected versus actual.

(() => {
  const { el, tree, sequence, cluster, isClusterObservation } = SJ;
  const view = JSON.parse(document.getElementById('counterexample').textContent);
  const steps = view.steps;
  const mark = view.divergence ? view.divergence.at : steps.length - 1;
  // Position 0 is the initial state; position i (1..n) is after step i (steps[i - 1]): `#step=K` shows step K.
  const fromHash = () => {
    const k = Number(new URLSearchParams(location.hash.slice(1)).get('step') ?? mark + 1);
    return Number.isInteger(k) ? Math.min(steps.length, Math.max(0, k)) : mark + 1;
  };
  let position = fromHash();

  const $ = (id) => document.getElementById(id);

  function header() {
    $('title').textContent = `streamjoin counterexample: ${view.name}`;
    if (view.description) $('description').textContent = view.description;
    const facts = $('facts');
    const rows = [['streamjoin', view.versions.streamjoin], ['spec', view.versions.spec], ...view.found];
    for (const [k, v] of rows) facts.append(el('tr', {}, el('th', {}, k), el('td', {}, el('code', {}, v))));
    const config = $('config');
    for (const [k, v] of view.config) config.append(el('tr', {}, el('th', {}, k), el('td', {}, el('code', {}, v))));
    const rules = $('rules');
    for (const r of view.rules)
      rules.append(
        el(
          'li',
          {},
          el('a', { href: `${view.specHref}#${r.anchor}` }, r.id.startsWith('§') ? `${r.id} ${r.title}` : `${r.id} — ${r.title}`),
        ),
      );
    for (const p of view.properties) rules.append(el('li', {}, 'property ', el('a', { href: `${view.specHref}#${p.anchor}` }, p.id)));
    const verdict = $('verdict');
    if (view.divergence) {
      verdict.append(
        el('strong', {}, `Divergence at step ${steps[view.divergence.at]?.number ?? view.divergence.at}: `),
        view.divergence.summary,
      );
    } else if (view.violation) {
      const v = view.violation;
      verdict.append(
        el('strong', {}, `${v.property} is broken after step ${steps.at(-1)?.number ?? 0}`),
        v.explanation ? `: ${v.explanation}` : '',
      );
      if (v.trap)
        verdict.append(
          el(
            'div',
            {},
            `Then, without faults, ${v.trap.kind === 'deadlock' ? 'into a deadlock' : 'round a cycle'}: ${v.trap.steps.join('; ')}`,
          ),
        );
    }
    const slider = $('slider');
    slider.max = String(steps.length);
    slider.addEventListener('input', () => go(Number(slider.value)));
    $('prev').addEventListener('click', () => go(position - 1));
    $('next').addEventListener('click', () => go(position + 1));
    $('first').addEventListener('click', () => go(0));
    $('last').addEventListener('click', () => go(steps.length));
    $('jump').addEventListener('click', () => go(mark + 1));
    $('jump').textContent = view.divergence ? 'divergence (d)' : 'violation (d)';
  }

  function divergencePanel(step) {
    const panel = $('divergence');
    panel.replaceChildren();
    const d = view.divergence;
    if (!d || step !== d.at) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    panel.append(
      el('h2', {}, `Expected versus actual at step ${steps[d.at].number} (${d.field})`),
      el('p', { class: 'summary' }, d.summary),
    );
    if (d.events) {
      const n = Math.max(d.events.expected.length, d.events.actual.length);
      const rows = [];
      for (let i = 0; i < n; i++) {
        rows.push(
          el(
            'tr',
            { class: i === d.events.first ? 'first-diff' : '' },
            el('td', {}, `${i === d.events.first ? '✗ ' : ''}${i}`),
            el('td', { class: 'expected' }, d.events.expected[i] ?? '(none)'),
            el('td', { class: 'actual' }, d.events.actual[i] ?? '(none)'),
          ),
        );
      }
      panel.append(
        el('table', { class: 'diff' }, el('tr', {}, el('th', {}, 'event'), el('th', {}, 'expected'), el('th', {}, 'actual')), ...rows),
      );
    } else if (d.diff.length > 0) {
      panel.append(
        el(
          'table',
          { class: 'diff' },
          el('tr', {}, el('th', {}, 'path'), el('th', {}, 'expected'), el('th', {}, 'actual')),
          ...d.diff.map((x) =>
            el(
              'tr',
              {},
              el('td', {}, el('code', {}, x.path)),
              el('td', { class: 'expected' }, JSON.stringify(x.expected)),
              el('td', { class: 'actual' }, JSON.stringify(x.actual)),
            ),
          ),
        ),
      );
    } else {
      panel.append(
        el(
          'table',
          { class: 'diff' },
          el('tr', {}, el('th', {}, 'expected'), el('td', { class: 'expected' }, JSON.stringify(d.expected))),
          el('tr', {}, el('th', {}, 'actual'), el('td', { class: 'actual' }, JSON.stringify(d.actual))),
        ),
      );
    }
  }

  function render() {
    const step = position === 0 ? undefined : steps[position - 1];
    const index = position - 1;
    $('slider').value = String(position);
    $('where').textContent = step ? `step ${step.number} of ${steps.length}` : `initial state (before step 1 of ${steps.length})`;
    $('action').replaceChildren(
      step ? el('code', {}, step.action) : 'before the first step',
      step && index === mark ? el('span', { class: 'badge' }, view.divergence ? '✗ diverges here' : '✗ property broken here') : '',
    );
    const happened = $('happened');
    happened.replaceChildren();
    if (step?.refused !== undefined) happened.append(el('li', { class: 'refused' }, `refused (not enabled): ${step.refused}`));
    for (const e of step?.events ?? []) happened.append(el('li', {}, e));
    if (step && step.refused === undefined && step.events.length === 0) happened.append(el('li', { class: 'quiet' }, 'no events'));
    const state = step ? step.state : view.initialState;
    const changed = new Set(step ? step.changed : []);
    $('changed').textContent = step
      ? step.changed.length
        ? `${step.changed.length} field(s) changed: ${step.changed.join(', ')}`
        : 'nothing changed'
      : '';
    const picture = $('picture');
    picture.replaceChildren();
    if (isClusterObservation(state)) picture.append(cluster(state, changed));
    const stateBox = $('state');
    stateBox.replaceChildren();
    const d = view.divergence;
    if (d && index === d.at && d.actualState !== undefined) {
      const differing = new Set(d.diff.map((x) => x.path));
      stateBox.append(
        el(
          'div',
          { class: 'pair' },
          el('div', {}, el('h3', {}, 'expected (the model)'), tree(state, differing, d.actualState)),
          el('div', {}, el('h3', {}, 'actual (the system)'), tree(d.actualState, differing, state)),
        ),
      );
    } else stateBox.append(tree(state, changed));
    divergencePanel(index);
    const seq = $('sequence');
    seq.replaceChildren(sequence(view.nodes, steps, index, (i) => go(i + 1), seq.clientWidth));
    const current = seq.querySelector('.row.current');
    if (current && typeof current.scrollIntoView === 'function') current.scrollIntoView({ block: 'nearest' });
    history.replaceState(null, '', `#step=${position}`);
  }

  function go(p) {
    position = Math.min(steps.length, Math.max(0, p));
    render();
  }

  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== 'range') return;
    const keys = {
      ArrowRight: () => go(position + 1),
      ArrowDown: () => go(position + 1),
      j: () => go(position + 1),
      ArrowLeft: () => go(position - 1),
      ArrowUp: () => go(position - 1),
      k: () => go(position - 1),
      Home: () => go(0),
      End: () => go(steps.length),
      d: () => go(mark + 1),
    };
    const f = keys[e.key];
    if (f) {
      e.preventDefault();
      f();
    }
  });

  // A link to another step of the same page (or the fragment edited by hand) moves there.
  window.addEventListener('hashchange', () => {
    if (fromHash() !== position) go(fromHash());
  });

  header();
  render();
})();
