// Renders the data posted by the extension. Builds DOM nodes with textContent only: server names never become markup.
(function () {
  const vscode = acquireVsCodeApi();
  const BEATS = 40;
  const SVG = 'http://www.w3.org/2000/svg';
  const root = document.getElementById('servers');
  const summary = document.getElementById('summary');
  const empty = document.getElementById('empty');
  // The extension's translations of the page's words (present/dashboardModel.ts), sent with every update.
  let texts = {};

  /** A translated sentence with its `{0}`… filled in. */
  function t(key, ...args) {
    return String(texts[key] ?? key).replace(/\{(\d+)\}/g, (match, index) =>
      args[Number(index)] === undefined ? match : String(args[Number(index)]),
    );
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function ms(value) {
    if (value === null || value === undefined) return '–';
    return t('ms', value < 10 ? Math.round(value * 10) / 10 : Math.round(value));
  }

  function beats(entries) {
    const bar = el('div', 'beats');
    bar.setAttribute('role', 'img');
    bar.tabIndex = 0;
    const probes = entries.filter((p) => p.outcome !== 'restart');
    const okCount = probes.filter((p) => p.ok).length;
    const restarts = entries.length - probes.length;
    bar.setAttribute(
      'aria-label',
      restarts ? t('probesAnsweredRestarts', okCount, probes.length, restarts) : t('probesAnswered', okCount, probes.length),
    );
    for (let i = entries.length; i < BEATS; i++) bar.appendChild(el('span', 'beat missing'));
    for (const probe of entries) {
      // A restart differs by shape (a short bar under a triangle) as well as colour, for colour-blind users.
      const kind = probe.outcome === 'restart' ? 'restart' : probe.ok ? 'ok' : 'error';
      const beat = el('span', `beat ${kind}`);
      beat.title = `${new Date(probe.at).toLocaleTimeString()} · ${probe.outcome}${probe.rttMs === null ? '' : ' · ' + ms(probe.rttMs)}`;
      bar.appendChild(beat);
    }
    return bar;
  }

  function svgEl(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The latency chart: a line of recent round trips on a scale from 0 to the largest, with p50 and p95 marked.
  const W = 260,
    H = 64,
    LEFT = 44,
    TOP = 4,
    BOTTOM = 4;
  function chart(probes, p50, p95) {
    const svg = svgEl('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', tabindex: 0 });
    const points = probes.filter((p) => p.rttMs !== null);
    if (points.length < 2) {
      svg.setAttribute('aria-label', t('notEnoughProbes'));
      svg.appendChild(svgEl('text', { x: LEFT, y: H / 2, class: 'axis' }, t('waitingForProbes')));
      return svg;
    }
    const max = Math.max(...points.map((p) => p.rttMs), p95 || 0, 0.1);
    const y = (value) => TOP + (1 - value / max) * (H - TOP - BOTTOM);
    const x = (i) => LEFT + (i / (points.length - 1)) * (W - LEFT - 2);
    svg.setAttribute('aria-label', t('latency', points.length, ms(p50), ms(p95), ms(max)));
    svg.append(
      svgEl('line', { x1: LEFT, x2: LEFT, y1: TOP, y2: H - BOTTOM, class: 'axis-line' }),
      svgEl('text', { x: LEFT - 4, y: TOP + 8, class: 'axis', 'text-anchor': 'end' }, ms(max)),
      svgEl('text', { x: LEFT - 4, y: H - BOTTOM, class: 'axis', 'text-anchor': 'end' }, '0'),
    );
    for (const [label, value] of [
      ['p50', p50],
      ['p95', p95],
    ]) {
      if (value === null || value === undefined) continue;
      svg.append(
        svgEl('line', { x1: LEFT, x2: W - 2, y1: y(value), y2: y(value), class: `mark ${label}` }),
        // p50 labelled on the left, p95 on the right: close values must not print over each other.
        label === 'p50'
          ? svgEl('text', { x: LEFT + 4, y: y(value) - 2, class: `axis ${label}` }, `${label} ${ms(value)}`)
          : svgEl('text', { x: W - 4, y: y(value) - 2, class: `axis ${label}`, 'text-anchor': 'end' }, `${label} ${ms(value)}`),
      );
    }
    svg.appendChild(svgEl('polyline', { points: points.map((p, i) => `${x(i)},${y(p.rttMs)}`).join(' ') }));
    return svg;
  }

  function button(label, message, title) {
    const node = el('button', '', label);
    if (title) node.title = title;
    node.addEventListener('click', () => vscode.postMessage(message));
    return node;
  }

  function render(servers, text) {
    empty.hidden = servers.length > 0;
    // The count comes from the extension, computed once for every view (status bar, tree badge, dashboard, CLI).
    summary.textContent = text || '';
    root.replaceChildren(
      ...servers.map((server) => {
        const card = el('section', `server health-${server.health}`);
        card.setAttribute('aria-label', `${server.name}: ${server.summary}`);
        const title = el('h2');
        title.append(
          el('span', `dot ${server.health}`),
          el('span', '', server.name),
          el('span', 'meta', `${server.transport} · ${server.summary}`),
        );
        const stats = el(
          'span',
          'stats',
          t(
            'stats',
            ms(server.p50Ms),
            ms(server.p95Ms),
            server.uptimePercent === null ? '–' : server.uptimePercent.toFixed(1) + ' %',
            server.restarts,
          ),
        );
        // Disabled, untrusted and misconfigured servers cannot be probed: no buttons, no empty charts.
        const probeable = server.probeable;
        const row = el('div', probeable ? 'row' : 'row static');
        if (probeable) row.append(beats(server.beats), chart(server.probes, server.p50Ms, server.p95Ms), stats);
        else row.append(stats);
        const actions = el('div', 'actions');
        if (probeable)
          actions.append(button(t('ping'), { type: 'ping', id: server.id }), button(t('reconnect'), { type: 'reconnect', id: server.id }));
        actions.append(
          button(t('openConfig'), { type: 'openConfig', id: server.id }, t('openConfigTitle')),
          button(t('showLog'), { type: 'showLog' }, t('showLogTitle')),
        );
        card.append(title, row);
        // Uptime over 1 h / 24 h / 7 d from the history kept across reloads (verified time only).
        if (server.history) card.append(el('p', 'history', t('historyUptime', server.history)));
        if (server.lastError || server.why || server.note) {
          const problem = el('div', 'problem');
          if (server.why) problem.append(el('p', 'why', server.why));
          if (server.lastError) problem.append(el('p', 'last-error', t('lastError', server.lastError)));
          if (server.nextStep) problem.append(el('p', 'next-step', t('nextStep', server.nextStep)));
          if (server.note) problem.append(el('p', 'vscode-note', server.note));
          card.append(problem);
        }
        card.append(actions);
        return card;
      }),
    );
    vscode.postMessage({ type: 'rendered', count: servers.length });
  }

  window.addEventListener('message', (event) => {
    if (event.data && event.data.type === 'servers') {
      texts = event.data.texts || {};
      render(event.data.servers, event.data.summary);
    }
  });
  // Any state at all marks the panel as one VS Code should restore after a reload (the serializer re-fills it).
  vscode.setState({ restored: true });
  vscode.postMessage({ type: 'ready' });
})();
