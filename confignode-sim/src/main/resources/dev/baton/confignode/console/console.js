// The Baton operator's console: plain JavaScript over the admin API, no build step.
// The token is kept in sessionStorage and sent as a Bearer token on every call; the event stream is
// read with fetch (not EventSource, which cannot send headers), so no token travels in a URL.
'use strict';

const TOKEN_KEY = 'baton.token';
const PAGE_SIZE = 50;
const REFRESH_DELAY_MS = 500;
const RECONNECT_MS = 2000;
const FLOW_TYPE = 'baton.flow';
const NO_PARENT = -1;
const STATES = ['INITIALIZING', 'RUNNABLE', 'WAITING', 'WAITING_TIMEOUT',
  'ROLLEDBACK', 'SUCCESS', 'FAILED'];

// Operator actions offered on a procedure: each is shown when the node's OpenAPI document has its
// path, so actions another change adds to the API appear here without touching the page.
const ACTIONS = [
  { name: 'abort', label: 'Abort', path: (id) => `/api/procedures/${id}/abort` },
  { name: 'force-fail', label: 'Force fail', path: (id) => `/api/procedures/${id}/force-fail` },
  { name: 'bypass', label: 'Bypass', path: (id) => `/api/procedures/${id}/bypass` },
  { name: 'retry-now', label: 'Retry now', path: (id) => `/api/procedures/${id}/retry-now` },
];

const $ = (sel) => document.querySelector(sel);
const state = { pages: [0], page: 0, next: null, refreshTimer: null, lastEventId: null,
  stream: null, apiPaths: null, rendering: false, renderAgain: false };

function token() { return sessionStorage.getItem(TOKEN_KEY); }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([k, v]) => {
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  });
  children.flat().forEach((c) => e.append(c instanceof Node ? c : document.createTextNode(c ?? '')));
  return e;
}

function showError(message) {
  const e = $('#error');
  e.textContent = message || '';
  e.hidden = !message;
}

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? `${status} ${body.error}: ${body.message}` : `HTTP ${status}`);
    this.status = status;
  }
}

async function api(path, options = {}) {
  const headers = Object.assign({ Authorization: `Bearer ${token()}` }, options.headers || {});
  const res = await fetch(path, Object.assign({}, options, { headers }));
  if (res.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin();
  }
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  if (!res.ok) throw new ApiError(res.status, body);
  return { body, headers: res.headers };
}

function age(ms) {
  if (ms < 1000) return `${ms} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 120 ? `${m} min` : `${Math.floor(m / 60)} h`;
}

function waitText(p) {
  if (p.waitReason) return p.waitReason;
  return p.blockedOn ? p.blockedOn.kind : '';
}

// ---- overview ----
async function overview() {
  const { body: o } = await api('/api/overview');
  $('#ov-live').textContent = o.live;
  $('#ov-stuck').textContent = o.stuck;
  $('#ov-oldest').textContent = o.oldestLiveAgeMillis === null ? '–' : age(o.oldestLiveAgeMillis);
  $('#ov-exec').textContent = `${o.executor.workers} / ${o.executor.queued}`;
  fill('#ov-states tbody', Object.entries(o.byState).map(([s, n]) => el('tr', { 'data-state': s },
    el('th', { class: `state-${s}` }, s), el('td', {}, String(n)))));
  fill('#ov-types tbody', Object.entries(o.byType).map(([t, n]) => el('tr', { 'data-type': t },
    el('th', {}, t), el('td', {}, String(n)))));
  const known = (v) => (v === null || v === undefined ? '?' : String(v));
  fill('#ov-nodes tbody', o.nodes.map((n) => el('tr', { 'data-node': n.id },
    el('td', {}, n.id), el('td', { class: 'role' }, n.role), el('td', { class: 'term' }, known(n.term)),
    el('td', { class: 'commit' }, known(n.commitIndex)), el('td', { class: 'applied' }, known(n.appliedIndex)),
    el('td', { class: 'match' }, known(n.matchIndex)), el('td', {}, n.live ? 'yes' : 'no'))));
}

function fill(selector, rows) {
  const body = $(selector);
  body.replaceChildren(...rows);
}

// ---- procedures ----
function listQuery() {
  const q = new URLSearchParams({ limit: PAGE_SIZE, after: state.pages[state.page] });
  const s = $('#f-state').value; const t = $('#f-type').value.trim();
  if (s) q.set('state', s); else if (!$('#f-succeeded').checked) q.set('notState', 'SUCCESS');
  if (t) q.set('type', t);
  return q;
}

async function procedures() {
  const { body, headers } = await api(`/api/procedures?${listQuery()}`);
  const now = Date.now();
  fill('#proc-table tbody', body.map((p) => el('tr', {
    class: 'clickable', 'data-proc-id': p.procId, onclick: () => { location.hash = `#procedure/${p.procId}`; },
  }, el('td', {}, String(p.procId)), el('td', {}, p.type), el('td', { class: `state-${p.state}` }, p.state),
  el('td', {}, p.step || ''), el('td', {}, age(now - p.submittedTime)), el('td', {}, waitText(p)))));
  state.next = headers.get('X-Next-After');
  $('#next').disabled = !state.next;
  $('#prev').disabled = state.page === 0;
  $('#page-no').textContent = `page ${state.page + 1}`;
}

// ---- one procedure ----
async function procedure(id) {
  $('#p-id').textContent = id;
  const { body: p } = await api(`/api/procedures/${id}`);
  // waits live in the leader's executor: a follower's own view lacks them, its why chain has the
  // leader's, whose first link is this procedure
  const why = p.finished ? null : (await api(`/api/procedures/${id}/why`)).body;
  const self = why && why.links.length && why.links[0].procId === p.procId ? why.links[0] : {};
  const waitReason = p.waitReason || self.waitReason;
  const blockedOn = p.blockedOn || self.blockedOn;
  const fields = [['type', p.type], ['state', p.state], ['step', p.step],
    ['parent', p.parentProcId === NO_PARENT ? '–' : p.parentProcId],
    ['root', p.rootProcId], ['submitted', new Date(p.submittedTime).toISOString()],
    ['last update', new Date(p.lastUpdate).toISOString()],
    ['waits on', waitReason || (blockedOn ? blockedOn.kind : '–')],
    ['blockedOn', blockedOn ? JSON.stringify(blockedOn) : '–'], ['failure', p.failure || '–'],
    ['result', p.result || '–']];
  fill('#p-fields', fields.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { id: `p-${k.replace(' ', '-')}` }, String(v))])
    .concat(p.type === FLOW_TYPE ? [el('dt', {}, 'flow'), el('dd', {}, el('a', { href: `#flow/${id}` }, 'its nodes'))] : []));
  if (why) {
    fill('#p-why', why.links.map((l) => el('li', { class: why.cycle ? 'cycle' : '' },
      el('a', { href: `#procedure/${l.procId}` }, `#${l.procId}`), ` ${l.type || ''} ${l.state || ''}: `,
      l.waitReason || (l.blockedOn ? l.blockedOn.kind : 'runs')))
      .concat([el('li', { class: 'root-cause' }, `root cause: ${why.rootCause || 'none'}`)]));
  } else {
    fill('#p-why', [el('li', {}, `finished ${p.state}`)]);
  }
  await timeline(id);
  const { body: children } = await api(`/api/procedures?parent=${id}&limit=${PAGE_SIZE}`);
  fill('#p-children', children.map((c) => el('li', {}, el('a', { href: `#procedure/${c.procId}` },
    `#${c.procId} ${c.type}`), ` ${c.state}`)));
  await actionButtons(id, p);
}

// the state timeline: every record of the procedure in the Raft log, with its term and attempt
async function timeline(id) {
  const { body: h } = await api(`/api/procedures/${id}/history`);
  $('#p-timeline-note').textContent = h.complete ? `${h.steps.length} records from the log`
    : `${h.steps.length} records from log index ${h.logStart} on (older ones are in a snapshot)`;
  fill('#p-timeline tbody', h.steps.map((s) => el('tr', { 'data-index': s.index },
    el('td', {}, new Date(s.time).toISOString()), el('td', { class: 'term' }, String(s.term)),
    el('td', {}, String(s.index)), el('td', { class: `state state-${s.state}` }, s.state),
    el('td', { class: 'step' }, s.step || ''), el('td', { class: 'attempt' }, String(s.attempt)),
    el('td', { class: 'error' }, s.failure || ''))));
}

// ---- flows ----
async function flows() {
  const { body } = await api(`/api/procedures?type=${encodeURIComponent(FLOW_TYPE)}&limit=${PAGE_SIZE}`);
  fill('#flow-table tbody', body.map((f) => el('tr', {
    class: 'clickable', 'data-flow-id': f.procId, onclick: () => { location.hash = `#flow/${f.procId}`; },
  }, el('td', {}, String(f.procId)), el('td', { class: `state-${f.state}` }, f.state),
  el('td', {}, new Date(f.submittedTime).toISOString()), el('td', {}, new Date(f.lastUpdate).toISOString()))));
}

async function flow(id) {
  $('#fl-id').textContent = id;
  const { body: f } = await api(`/api/flows/${id}`);
  $('#fl-state').textContent = f.state;
  $('#fl-detail').textContent = f.detail || '';
  fill('#fl-nodes tbody', f.nodes.map((n) => el('tr', { 'data-node': n.name },
    el('td', {}, n.name), el('td', {}, n.taskType), el('td', { class: `node-state state-${n.state}` }, n.state),
    el('td', {}, n.parents.join(', ')), el('td', {}, String(n.attempts)),
    el('td', {}, n.taskProcId ? el('a', { href: `#procedure/${n.taskProcId}` }, `#${n.taskProcId}`) : '–'),
    el('td', { class: 'detail' }, n.detail || ''))));
  const pending = f.nodes.filter((n) => n.state === 'PENDING' && n.suspensions > 0);
  const chosen = $('#fl-node').value;
  fill('#fl-node', pending.map((n) => el('option', { value: n.name }, n.name)));
  if (pending.some((n) => n.name === chosen)) $('#fl-node').value = chosen;
  $('#fl-dry-run').disabled = !pending.length;
  $('#fl-do-resume').disabled = !pending.length;
}

async function resumeNode(id, dryRun) {
  const reason = $('#fl-reason').value.trim();
  const node = $('#fl-node').value;
  if (!reason) { $('#fl-result').textContent = 'a reason is required'; return; }
  if (!node) { $('#fl-result').textContent = 'no PENDING node to resume'; return; }
  try {
    const { body } = await api(`/api/flows/${id}/nodes/${encodeURIComponent(node)}/resume`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ reason, action: $('#fl-action').value, dryRun }),
    });
    $('#fl-result').textContent = dryRun
      ? `dry run, nothing changed: ${body.states.map((c) => `${c.node} ${c.from} → ${c.to}`).join('; ')}: ${body.effect}`
      : `resumed: ${body.audit.outcome} (audit entry ${body.audit.index})`;
  } catch (e) {
    $('#fl-result').textContent = `resume refused: ${e.message}`;
  }
  if (!dryRun) scheduleRefresh();
}

async function apiPaths() {
  if (!state.apiPaths) {
    const { body } = await api('/api/openapi.json');
    state.apiPaths = new Set(Object.keys(body.paths || {}));
  }
  return state.apiPaths;
}

async function actionButtons(id, p) {
  const paths = await apiPaths();
  const offered = ACTIONS.filter((a) => paths.has(a.path('{id}')));
  fill('#a-buttons', offered.map((a) => el('button', {
    type: 'button', id: `action-${a.name}`, 'data-action': a.name, disabled: p.finished ? 'disabled' : null,
    onclick: () => act(a, id),
  }, a.label)).map((b) => { if (!p.finished) b.removeAttribute('disabled'); return b; }));
}

async function act(action, id) {
  const reason = $('#a-reason').value.trim();
  if (!reason) { $('#a-result').textContent = 'a reason is required'; return; }
  try {
    const { body } = await api(action.path(id), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ reason }),
    });
    $('#a-result').textContent = `${action.name}: ${JSON.stringify(body)}`;
  } catch (e) {
    $('#a-result').textContent = `${action.name} refused: ${e.message}`;
  }
  scheduleRefresh();
}

// ---- locks ----
async function locks() {
  const { body } = await api('/api/locks');
  const inCycle = new Set(body.cycles.flatMap((c) => c.procIds));
  const who = (list) => list.map((h) => el('a', { class: `badge${inCycle.has(h.procId) ? ' cycle' : ''}`,
    'data-proc-id': h.procId, href: `#procedure/${h.procId}` }, `#${h.procId} ${h.procType} ${h.mode}`));
  fill('#lock-table tbody', body.locks.map((l) => el('tr', { 'data-resource': l.resource },
    el('td', {}, l.resource), el('td', {}, l.mode || '–'), el('td', {}, age(l.heldMillis)),
    el('td', { class: 'holders' }, who(l.holders)), el('td', { class: 'waiters' }, who(l.waiters)))));
  $('#l-deadlocks').textContent = `deadlocks this term: ${body.deadlocks}`;
  const cycles = body.cycles.concat(body.recentDeadlocks);
  fill('#l-cycles', cycles.length ? cycles.map((c) => el('li', { class: 'cycle' }, c.text))
    : [el('li', { class: 'none' }, 'none')]);
}

// ---- audit ----
const AUDIT_COLUMNS = ['time', 'procedure', 'action', 'principal', 'reason', 'outcome'];

function auditOutcome(r) {
  if (!r.decided) return 'pending';
  return `${r.refused ? 'refused' : 'done'}${r.outcome ? `: ${r.outcome}` : ''}`;
}

async function audit() {
  try {
    const { body } = await api('/api/audit');
    const rows = Array.isArray(body) ? body : (body.entries || []);
    $('#audit-note').textContent = `${rows.length} actions`;
    fill('#audit-table thead', [el('tr', {}, AUDIT_COLUMNS.map((c) => el('th', {}, c)))]);
    fill('#audit-table tbody', rows.map((r) => el('tr', { 'data-proc-id': r.procId, 'data-index': r.index },
      el('td', {}, new Date(r.timeMillis).toISOString()),
      el('td', {}, el('a', { href: `#procedure/${r.procId}` }, `#${r.procId}`)),
      el('td', { class: 'action' }, `${r.action}${r.recursive ? ' (recursive)' : ''}${r.flowNode ? ` node ${r.flowNode} (${r.resumeAction})` : ''}`),
      el('td', { class: 'principal' }, r.principal), el('td', { class: 'reason' }, r.reason),
      el('td', { class: 'outcome' }, auditOutcome(r)))));
  } catch (e) {
    if (e.status !== 404) throw e;
    $('#audit-note').textContent = 'This node has no audit trail API (GET /api/audit) yet.';
  }
}

// ---- routing and refresh ----
function route() {
  const [view, arg] = (location.hash.slice(1) || 'overview').split('/');
  document.querySelectorAll('.view').forEach((v) => { v.hidden = true; });
  document.querySelectorAll('#nav a').forEach((a) => a.classList.toggle('active', a.dataset.view === view));
  const section = $(`#view-${view}`) || $('#view-overview');
  section.hidden = false;
  return { view: section.id.slice('view-'.length), arg };
}

// one render at a time: a render asked for while one runs (a new page, a change) runs after it, so
// a slower render of the page before never overwrites the page shown now
async function refresh() {
  if (state.rendering) { state.renderAgain = true; return; }
  state.rendering = true;
  try {
    do {
      state.renderAgain = false;
      await render();
    } while (state.renderAgain);
  } finally {
    state.rendering = false;
  }
}

async function render() {
  if (!token()) return;
  const { view, arg } = route();
  try {
    if (view === 'overview') await overview();
    else if (view === 'procedures') await procedures();
    else if (view === 'procedure') await procedure(arg);
    else if (view === 'flows') await flows();
    else if (view === 'flow') await flow(arg);
    else if (view === 'locks') await locks();
    else if (view === 'audit') await audit();
    showError('');
    document.body.dataset.loaded = view;
  } catch (e) {
    showError(e.message);
  }
}

function scheduleRefresh() {
  if (state.refreshTimer) return;
  state.refreshTimer = setTimeout(() => { state.refreshTimer = null; refresh(); }, REFRESH_DELAY_MS);
}

// ---- live updates: server-sent events read with fetch ----
function setLive(on) {
  const l = $('#live');
  l.textContent = on ? 'live' : 'offline';
  l.className = `live ${on ? 'on' : 'off'}`;
}

function handleFrame(frame) {
  let id = null; let event = 'message'; const data = [];
  frame.split('\n').forEach((line) => {
    if (line.startsWith(':') || !line) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value; else if (field === 'event') event = value; else if (field === 'data') data.push(value);
  });
  if (id !== null) state.lastEventId = id;
  if (event === 'procedure' || event === 'reset') scheduleRefresh();
  if (event === 'ready') setLive(true);
}

async function watch() {
  if (!token() || state.stream) return;
  const controller = new AbortController();
  state.stream = controller;
  try {
    const headers = { Authorization: `Bearer ${token()}`, Accept: 'text/event-stream' };
    if (state.lastEventId) headers['Last-Event-ID'] = state.lastEventId;
    const res = await fetch('/api/events', { headers, signal: controller.signal });
    if (!res.ok) throw new Error(`events: HTTP ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        handleFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } catch (e) {
    // reconnects below
  } finally {
    setLive(false);
    state.stream = null;
    if (token()) setTimeout(watch, RECONNECT_MS);
  }
}

function showLogin() {
  $('#login').hidden = false;
  document.querySelectorAll('.view').forEach((v) => { v.hidden = true; });
}

function start() {
  STATES.forEach((s) => $('#f-state').append(el('option', { value: s }, s)));
  $('#login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('#token').value);
    $('#token').value = '';
    $('#login').hidden = true;
    refresh();
    watch();
  });
  $('#logout').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    if (state.stream) state.stream.abort();
    showLogin();
  });
  $('#proc-filter').addEventListener('submit', (e) => { e.preventDefault(); state.pages = [0]; state.page = 0; refresh(); });
  $('#next').addEventListener('click', () => { state.pages[state.page + 1] = state.next; state.page += 1; refresh(); });
  $('#prev').addEventListener('click', () => { state.page = Math.max(0, state.page - 1); refresh(); });
  $('#fl-dry-run').addEventListener('click', () => resumeNode($('#fl-id').textContent, true));
  $('#fl-do-resume').addEventListener('click', () => resumeNode($('#fl-id').textContent, false));
  window.addEventListener('hashchange', refresh);
  if (!token()) { showLogin(); return; }
  refresh();
  watch();
}

document.addEventListener('DOMContentLoaded', start);
