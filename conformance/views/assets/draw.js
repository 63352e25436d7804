// Drawing shared by the counterexample viewer and the interactive explorer
// (both inline this file into their page; nothing is fetched): a JSON state
// as a tree with changed fields highlighted, a sequence diagram with one
// lane per node, and a cluster observation (SPEC §7) as boxes for the log,
// the coordinator, the workers, the store and the sink. Every text goes in
// through textContent, never as HTML.

// biome-ignore lint/correctness/noUnusedVariables: the pages' own scripts, inlined after this one, use it.
const SJ = (() => {
  const SVG = 'http://www.w3.org/2000/svg';

  /** An element with attributes and children (strings become text nodes). */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) if (c !== undefined && c !== null) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
    return e;
  }

  function svg(tag, attrs, ...children) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs ?? {})) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
    for (const c of children.flat()) if (c !== undefined && c !== null) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
    return e;
  }

  const escapePointer = (k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');
  const short = (v) => (v === null ? 'null' : typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v));

  /**
   * A JSON value as a tree. `changed` is a set of JSON pointers: a leaf whose
   * pointer is in it, or lies under one, is marked; an object or array that
   * contains one is marked as holding a change. `other`, when given, is the
   * value to compare with (expected versus actual): leaves that differ are
   * marked too.
   */
  function tree(value, changed, other) {
    const marks = changed instanceof Set ? changed : new Set(changed ?? []);
    const hasUnder = (p) => {
      for (const c of marks) if (c === p || c.startsWith(`${p}/`) || p === '') return c !== '' || p === '';
      return false;
    };
    const isMarked = (p) => {
      for (const c of marks) if (c === p || p.startsWith(`${c}/`) || c === '/') return true;
      return false;
    };
    const node = (v, p, o, name) => {
      const differs = other !== undefined && JSON.stringify(v) !== JSON.stringify(o);
      const key = name === undefined ? [] : [el('span', { class: 'k' }, String(name)), ': '];
      if (v !== null && typeof v === 'object') {
        const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
        const open = p.split('/').length <= 3 || hasUnder(p) || differs;
        const details = el('details', {
          class: `obj${hasUnder(p) && p !== '' ? ' holds' : ''}${differs ? ' differs' : ''}`,
          'data-path': p || '/',
        });
        if (open) details.open = true;
        const summary = el(
          'summary',
          {},
          ...key,
          el('span', { class: 'brace' }, Array.isArray(v) ? `[${v.length}]` : `{${entries.length}}`),
          entries.length === 0 ? '' : el('span', { class: 'preview' }, ` ${previewOf(v)}`),
        );
        details.append(summary);
        const list = el('div', { class: 'kids' });
        for (const [k, x] of entries) list.append(node(x, `${p}/${escapePointer(k)}`, o?.[k], k));
        details.append(list);
        return details;
      }
      const cls = `leaf${isMarked(p) ? ' changed' : ''}${differs ? ' differs' : ''}`;
      return el(
        'div',
        { class: cls, 'data-path': p || '/' },
        ...key,
        el('span', { class: `v ${v === null ? 'null' : typeof v}` }, short(v)),
      );
    };
    return node(value, '', other, undefined);
  }

  function previewOf(v) {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 57)}…` : s;
  }

  /**
   * A sequence diagram: one lane per node, a row per message or note. `steps`
   * is a list of { number, rows: [{from, to?, text, kind}] }; `current` the
   * index of the step to highlight (-1: none); `onPick(i)` is called when a
   * row is clicked; `fit` the width to fit in (the panel's), when known. The
   * lanes shrink to fit it (down to a readable minimum, then the panel
   * scrolls), and the node names are a header of their own that stays in view
   * while the rows scroll under it. A fenced write is drawn refused: a dashed
   * line that stops at a cross before the sink, its label leading with FENCED.
   */
  function sequence(nodes, steps, current, onPick, fit) {
    const left = 44;
    const roomy = nodes.length > 5 ? 108 : 150;
    const lane = fit > 0 ? Math.max(84, Math.min(roomy, Math.floor((fit - left - 20) / nodes.length))) : roomy;
    const rowH = 22;
    const top = 34;
    const rows = [];
    steps.forEach((s, i) => {
      const list = s.rows.length > 0 ? s.rows : [{ from: 0, text: s.action, kind: 'note' }];
      list.forEach((r, j) => rows.push({ ...r, step: i, first: j === 0, number: s.number }));
    });
    const width = left + nodes.length * lane + 20;
    const x = (i) => left + i * lane + lane / 2;
    // The rows start at the top of their own picture; the names are in the header.
    const head = svg('svg', { class: 'seq seq-head', width, height: top - 8, viewBox: `0 0 ${width} ${top - 8}`, 'aria-hidden': 'true' });
    nodes.forEach((n, i) => head.append(svg('text', { class: 'node', x: x(i), y: 18, 'text-anchor': 'middle' }, n)));
    const rowsTop = 4;
    const height = rowsTop + rows.length * rowH + 8;
    const root = svg('svg', {
      class: 'seq',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `sequence diagram of ${nodes.join(', ')}`,
    });
    root.append(
      svg(
        'defs',
        {},
        svg(
          'marker',
          { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
          svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
        ),
      ),
    );
    rows.forEach((r, k) => {
      if (r.step === current) root.append(svg('rect', { class: 'cur', x: 0, y: rowsTop + k * rowH, width, height: rowH }));
    });
    nodes.forEach((_, i) => root.append(svg('line', { class: 'lifeline', x1: x(i), y1: 0, x2: x(i), y2: height })));
    // About 7 px a character: a label is cut to what fits before the right edge (the whole text is its tooltip).
    const fits = (text, from) => {
      const room = Math.max(8, Math.floor((width - from - 4) / 7));
      return text.length > room ? `${text.slice(0, room - 1)}…` : text;
    };
    rows.forEach((r, k) => {
      const y = rowsTop + k * rowH + rowH / 2;
      const g = svg('g', { class: `row ${r.kind}${r.step === current ? ' current' : ''}`, 'data-step': r.step });
      if (onPick) g.addEventListener('click', () => onPick(r.step));
      if (r.first) g.append(svg('text', { class: 'num', x: 6, y: y + 4 }, String(r.number)));
      if (r.to === undefined || r.to === r.from) {
        const cx = r.kind === 'divergence' ? left + 4 : x(r.from);
        g.append(svg('circle', { cx, cy: y, r: 4 }));
        g.append(svg('text', { x: cx + 8, y: y + 4 }, fits(r.text, cx + 8)));
        g.append(svg('title', {}, r.text));
      } else {
        const a = x(r.from);
        const b = x(r.to);
        const mid = Math.min(a, b) + 8;
        if (r.kind === 'fenced') {
          // Refused by the sink's fence (C9): the write stops short, at a cross.
          const end = b + (b > a ? -12 : 12);
          g.append(svg('line', { class: 'msg refused-write', x1: a, y1: y, x2: end, y2: y }));
          g.append(
            svg('path', { class: 'cross', d: `M${end - 4},${y - 4} L${end + 4},${y + 4} M${end - 4},${y + 4} L${end + 4},${y - 4}` }),
          );
        } else g.append(svg('line', { class: 'msg', x1: a, y1: y, x2: b + (b > a ? -3 : 3), y2: y, 'marker-end': 'url(#arrow)' }));
        g.append(svg('text', { x: mid, y: y - 4 }, fits(r.text, mid)));
        g.append(svg('title', {}, r.text));
      }
      root.append(g);
    });
    return el('div', { class: 'seq-frame' }, head, root);
  }

  /** True for a cluster observation (SPEC §7). */
  function isClusterObservation(s) {
    return s !== null && typeof s === 'object' && 'coordinator' in s && 'workers' in s && 'sink' in s;
  }

  /**
   * A cluster observation as boxes: the log length, the coordinator (up,
   * owner and epoch per key, the handoff in flight), each worker with its
   * copies, the checkpoint store, the sink (fences, matches, counters).
   * Boxes of fields that `changed` touches are marked.
   */
  function cluster(obs, changed) {
    const marks = [...(changed ?? [])];
    const touched = (prefix) => marks.some((c) => c === prefix || c.startsWith(`${prefix}/`));
    const box = (title, cls, prefix, ...lines) =>
      el(
        'div',
        { class: `box ${cls}${touched(prefix) ? ' touched' : ''}`, 'data-node': title },
        el('div', { class: 'title' }, title),
        ...lines,
      );
    const line = (text, path) => el('div', { class: `line${path && touched(path) ? ' changed' : ''}` }, text);
    const c = obs.coordinator;
    const keys = Object.entries(c.keys);
    const h = c.handoff;
    const coord = box(
      'coordinator',
      `coordinator ${c.up ? 'up' : 'down'}`,
      '/coordinator',
      line(c.up ? 'up' : 'DOWN', '/coordinator/up'),
      ...keys.map(([k, o]) => line(`${k}: owner ${o.owner}, epoch ${o.epoch}`, `/coordinator/keys/${escapePointer(k)}`)),
      line(
        h ? `handoff: ${h.kind} ${h.key} ${h.src} → ${h.dst} from e${h.from}, ${h.phase}` : 'no handoff in flight',
        '/coordinator/handoff',
      ),
    );
    const workers = Object.entries(obs.workers).map(([w, ws]) =>
      box(
        w,
        `worker ${ws.status}`,
        `/workers/${escapePointer(w)}`,
        line(ws.status, `/workers/${escapePointer(w)}/status`),
        ...(Object.keys(ws.keys).length === 0 ? [line('no copies')] : []),
        ...Object.entries(ws.keys).map(([k, cp]) =>
          line(
            `${k}: e${cp.epoch} @${cp.cursor}${cp.frozen ? ' frozen' : ''} · ${cp.retained.live} live ${cp.retained.tombstones} tomb ${cp.retained.matches} match`,
            `/workers/${escapePointer(w)}/keys/${escapePointer(k)}`,
          ),
        ),
      ),
    );
    const store = box(
      'store',
      'store',
      '/store',
      ...(Object.keys(obs.store).length === 0 ? [line('no checkpoints')] : []),
      ...Object.entries(obs.store).map(([k, cp]) => line(`${k}: e${cp.epoch} @${cp.cursor}`, `/store/${escapePointer(k)}`)),
    );
    const s = obs.sink;
    const sink = box(
      'sink',
      'sink',
      '/sink',
      ...Object.entries(s.fence).map(([k, e]) => line(`fence ${k}: e${e}`, `/sink/fence/${escapePointer(k)}`)),
      ...Object.entries(s.matches).map(([m, st]) => line(`${st === 'inserted' ? '+' : '−'} ${m}`, `/sink/matches/${escapePointer(m)}`)),
      line(`applied ${s.applied} · deduped ${s.deduped} · fenced ${s.fenced}`),
    );
    const log = box('log', 'log', '/log', line(`${obs.log} record(s)`, '/log'));
    return el(
      'div',
      { class: 'cluster' },
      el('div', { class: 'tier' }, log, coord, store),
      el('div', { class: 'tier' }, ...workers),
      el('div', { class: 'tier' }, sink),
      el(
        'p',
        { class: 'legend' },
        'k1: e1 @2 · 3 live 1 tomb 2 match — the copy of key k1 at epoch 1, its cursor 2 (log records processed), ',
        'holding 3 live rows, 1 tombstone and 2 matches (J8); frozen: a handoff froze it. ',
        'Sink: + an inserted match, − a retracted one; fence k1: e2, the lowest epoch it accepts for k1 (C9).',
      ),
    );
  }

  return { el, svg, tree, sequence, cluster, isClusterObservation, escapePointer };
})();
