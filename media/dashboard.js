// Renders the data posted by the extension. Builds DOM nodes with textContent only: server names never become markup.
(function () {
  const vscode = acquireVsCodeApi();
  const BEATS = 40;
  const SVG = 'http://www.w3.org/2000/svg';
  const root = document.getElementById('servers');
  const summary = document.getElementById('summary');
  const empty = document.getElementById('empty');

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function ms(value) {
    if (value === null || value === undefined) return '–';
    return value < 10 ? `${Math.round(value * 10) / 10} ms` : `${Math.round(value)} ms`;
  }

  function beats(entries) {
    const bar = el('div', 'beats');
    bar.setAttribute('role', 'img');
    const probes = entries.filter((p) => p.outcome !== 'restart');
    const okCount = probes.filter((p) => p.ok).length;
    const restarts = entries.length - probes.length;
    bar.setAttribute('aria-label', `${okCount} of ${probes.length} recent probes answered` + (restarts ? `, ${restarts} restarts` : ''));
    for (let i = entries.length; i < BEATS; i++) bar.appendChild(el('span', 'beat missing'));
    for (const probe of entries) {
      const beat = el('span', `beat ${probe.ok ? 'ok' : 'error'}`);
      beat.title = `${new Date(probe.at).toLocaleTimeString()} · ${probe.outcome}${probe.rttMs === null ? '' : ' · ' + ms(probe.rttMs)}`;
      bar.appendChild(beat);
    }
    return bar;
  }

  function chart(probes) {
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('viewBox', '0 0 240 40');
    svg.setAttribute('preserveAspectRatio', 'none');
    const points = probes.filter((p) => p.rttMs !== null);
    if (points.length > 1) {
      const max = Math.max(...points.map((p) => p.rttMs), 1);
      const line = document.createElementNS(SVG, 'polyline');
      line.setAttribute('points', points.map((p, i) => `${(i / (points.length - 1)) * 238 + 1},${39 - (p.rttMs / max) * 36}`).join(' '));
      svg.appendChild(line);
      const label = document.createElementNS(SVG, 'title');
      label.textContent = `latency, max ${ms(max)}`;
      svg.appendChild(label);
    }
    return svg;
  }

  function render(servers, text) {
    empty.hidden = servers.length > 0;
    // The count comes from the extension, computed once for every view (status bar, tree badge, dashboard, CLI).
    summary.textContent = text || '';
    root.replaceChildren(...servers.map((server) => {
      const card = el('section', 'server');
      const title = el('h2');
      title.append(el('span', `dot ${server.health}`), el('span', '', server.name), el('span', 'meta', `${server.transport} · ${server.summary}`));
      const stats = el('span', 'stats',
        `p50 ${ms(server.p50Ms)} · p95 ${ms(server.p95Ms)} · uptime ${server.uptimePercent === null ? '–' : server.uptimePercent.toFixed(1) + ' %'} · restarts ${server.restarts}`);
      const ping = el('button', '', 'Ping');
      ping.addEventListener('click', () => vscode.postMessage({ type: 'ping', id: server.id }));
      const reconnect = el('button', '', 'Reconnect');
      reconnect.addEventListener('click', () => vscode.postMessage({ type: 'reconnect', id: server.id }));
      // Disabled, untrusted and misconfigured servers cannot be probed: no buttons, no empty charts.
      const probeable = server.probeable;
      const row = el('div', probeable ? 'row' : 'row static');
      if (probeable) row.append(beats(server.beats), chart(server.probes), stats, ping, reconnect);
      else row.append(stats);
      card.append(title, row);
      return card;
    }));
    vscode.postMessage({ type: 'rendered', count: servers.length });
  }

  window.addEventListener('message', (event) => {
    if (event.data && event.data.type === 'servers') render(event.data.servers, event.data.summary);
  });
  vscode.postMessage({ type: 'ready' });
})();
