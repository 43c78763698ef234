'use strict';
// The dashboard lists pending questions once, then follows every change over the REST API's watch
// (Server-Sent Events), resuming from the last event id when the connection drops. When the broker
// authenticates (it answers 401), people sign in first: with a pasted bearer token, or at the OIDC
// issuer (authorization code with PKCE) where the broker offers it. The token lives in this tab's
// sessionStorage and goes with every request, the watch included: that is why the watch is read with
// fetch, as EventSource cannot send headers.
const TOKEN = 'ark-broker.token';
const PENDING_SIGN_IN = 'ark-broker.oidc';
const CHANGES = new Set(['question_created', 'question_answered', 'question_cancelled', 'question_expired', 'question_delivered']);
const ENDED = 'Your sign-in has ended; sign in again';

const questions = new Map();
const settledOrder = [];
/** Aborts the list and watch of the current view. */
let watching = null;
/** How the broker lets people sign in at the issuer, or null. */
let oidc = null;

const $ = (id) => document.getElementById(id);
const me = $('me');
const filter = $('filter');
me.value = localStorage.getItem('ark-broker.me') || '';
me.addEventListener('change', () => localStorage.setItem('ark-broker.me', me.value.trim()));
filter.addEventListener('input', render);

function element(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name === 'onclick') node.addEventListener('click', value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function when(instant) {
  return instant ? new Date(instant).toLocaleString() : '';
}

/** A request to the broker, as whoever is signed in. */
function request(method, path, { body, signal, headers } = {}) {
  const token = sessionStorage.getItem(TOKEN);
  return fetch(path, {
    method,
    signal,
    cache: 'no-store',
    headers: {
      ...(body ? { 'Content-Type': 'application/json' } : {}),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function errorMessage(response) {
  const json = await response.json().catch(() => ({}));
  return json.error?.message || `HTTP ${response.status}`;
}

async function answer(question, response, card) {
  const body = { response };
  // Signed in, the broker records who answers; the open broker takes the name people give.
  const by = $('answering-as').hidden ? '' : me.value.trim();
  if (by) body.answeredBy = by;
  await send(card, 'PATCH', `/questions/${encodeURIComponent(question.id)}`, body);
}

async function cancel(question, card) {
  await send(card, 'DELETE', `/questions/${encodeURIComponent(question.id)}`);
}

async function send(card, method, path, body) {
  card.querySelectorAll('button').forEach((b) => { b.disabled = true; });
  card.querySelector('.error')?.remove();
  let failure;
  try {
    const response = await request(method, path, { body });
    if (response.status === 401) {
      signedOut(`${ENDED}: ${await errorMessage(response)}`);
      return;
    }
    if (response.ok) {
      apply(await response.json());
      return;
    }
    failure = await errorMessage(response);
  } catch (error) {
    failure = `cannot reach the broker: ${error.message}`;
  }
  card.append(element('div', { class: 'error', role: 'alert' }, failure));
  card.querySelectorAll('button').forEach((b) => { b.disabled = false; });
}

function pendingCard(q) {
  const card = element('article', { class: `card ${q.priority}`, 'data-id': q.id },
    element('div', { class: 'meta' },
      element('span', { class: `badge ${q.priority}` }, q.priority),
      element('span', {}, `${q.sender || 'unnamed asker'} → ${q.recipient}`),
      element('span', {}, `asked ${when(q.createdAt)}`),
      q.expiresAt ? element('span', {}, `expires ${when(q.expiresAt)}`) : null,
      (q.deliveries || []).length ? element('span', {}, `shown in ${q.deliveries.map((d) => d.label || d.channel).join(', ')}`) : null),
    element('div', { class: 'content' }, q.content),
    q.context ? element('div', { class: 'context' }, q.context) : null);
  const actions = element('div', { class: 'actions' });
  if (q.options && q.options.length) {
    for (const option of q.options) {
      actions.append(element('button', { onclick: () => answer(q, option, card), 'data-option': option }, option));
    }
  } else {
    const text = element('textarea', { 'aria-label': 'Your answer', placeholder: 'Your answer' });
    actions.append(text, element('button', { onclick: () => text.value.trim() && answer(q, text.value.trim(), card) }, 'Answer'));
  }
  actions.append(element('button', { class: 'secondary', onclick: () => cancel(q, card) }, 'Cancel question'));
  card.append(actions);
  return card;
}

function settledCard(q) {
  const outcome = q.status === 'answered'
    ? `Answered${q.answeredBy ? ` by ${q.answeredBy}` : ''}: ${q.response}`
    : q.status === 'expired' ? `Expired ${when(q.expiresAt)} without an answer` : 'Cancelled';
  return element('article', { class: 'card', 'data-id': q.id },
    element('div', { class: 'meta' }, element('span', {}, `${q.sender || 'unnamed asker'} → ${q.recipient}`),
      element('span', {}, when(q.updatedAt))),
    element('div', { class: 'content' }, q.content),
    element('div', { class: `outcome ${q.status}` }, outcome));
}

function render() {
  const only = filter.value.trim();
  const shown = (q) => !only || q.recipient === only;
  const rank = { high: 0, medium: 1, low: 2 };
  const pending = [...questions.values()].filter((q) => q.status === 'pending' && shown(q))
    .sort((a, b) => rank[a.priority] - rank[b.priority] || a.createdAt.localeCompare(b.createdAt));
  $('pending').replaceChildren(...(pending.length ? pending.map(pendingCard)
    : [element('div', { class: 'empty' }, 'Nothing is waiting for an answer.')]));
  $('pending-count').textContent = pending.length ? `(${pending.length})` : '';
  const settled = settledOrder.map((id) => questions.get(id)).filter((q) => q && shown(q)).slice(0, 20);
  $('settled').replaceChildren(...(settled.length ? settled.map(settledCard)
    : [element('div', { class: 'empty' }, 'Nothing settled since this page opened.')]));
}

function apply(q) {
  const known = questions.get(q.id);
  if (known && Number(known.resourceVersion) >= Number(q.resourceVersion)) return;
  questions.set(q.id, q);
  if (q.status !== 'pending') {
    const at = settledOrder.indexOf(q.id);
    if (at >= 0) settledOrder.splice(at, 1);
    settledOrder.unshift(q.id);
    settledOrder.length = Math.min(settledOrder.length, 100);
  }
  render();
}

function connection(state, text) {
  const status = $('connection');
  status.className = state;
  status.textContent = text;
}

/** Lists what is pending, then follows the changes after it. */
async function start() {
  watching?.abort();
  const controller = new AbortController();
  watching = controller;
  questions.clear();
  let next = null;
  let resourceVersion = '0';
  do {
    const response = await request('GET',
      `/questions?status=pending&limit=1000${next ? `&continue=${encodeURIComponent(next)}` : ''}`, { signal: controller.signal });
    if (response.status === 401) {
      signedOut(`${ENDED}: ${await errorMessage(response)}`);
      return;
    }
    if (!response.ok) throw new Error(await errorMessage(response));
    const page = await response.json();
    if (!next) resourceVersion = page.resourceVersion;
    page.items.forEach((q) => questions.set(q.id, q));
    next = page.continue;
  } while (next);
  render();
  follow(resourceVersion, controller.signal);
}

/**
 * Reads the watch as EventSource would: frames of `field: value` lines ended by a blank line, the
 * server's `retry:` between attempts, and `Last-Event-ID` on reconnecting, so nothing is missed.
 */
async function follow(resourceVersion, signal) {
  let lastEventId = null;
  let retry = 2000;
  while (!signal.aborted) {
    try {
      const response = await request('GET', `/questions?watch=true&resourceVersion=${encodeURIComponent(resourceVersion)}`,
        { signal, headers: { Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) } });
      if (response.status === 401) {
        signedOut(`${ENDED}: ${await errorMessage(response)}`);
        return;
      }
      if (response.status >= 400 && response.status < 500) {
        connection('down', `the broker refused the watch: ${await errorMessage(response)}`);
        return;
      }
      if (response.ok) {
        connection('live', 'live');
        const frames = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        let frame = { event: '', data: [] };
        for (let chunk = await frames.read(); !chunk.done; chunk = await frames.read()) {
          const lines = (buffer + chunk.value).split('\n');
          buffer = lines.pop();
          for (const raw of lines) {
            const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
            if (line === '') {
              if (frame.event === 'error' && frame.data.length) {
                // The history this watch resumes from is gone (code 410): list again and watch from there.
                start().catch(unreachable);
                return;
              }
              if (CHANGES.has(frame.event)) apply(JSON.parse(frame.data.join('\n')));
              frame = { event: '', data: [] };
              continue;
            }
            const colon = line.indexOf(':');
            if (colon === 0) continue; // a comment: the opening line, heartbeats
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') frame.event = value;
            else if (field === 'data') frame.data.push(value);
            else if (field === 'id') lastEventId = value;
            else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
    }
    if (signal.aborted) return;
    connection('down', 'reconnecting…');
    await new Promise((resume) => {
      const timer = setTimeout(resume, retry);
      signal.addEventListener('abort', () => { clearTimeout(timer); resume(); }, { once: true });
    });
  }
}

function unreachable(error) {
  connection('down', `cannot reach the broker: ${error.message}`);
}

// Who is signed in.

function showIdentity(who) {
  const identity = $('identity');
  const open = who.method === 'anonymous';
  $('answering-as').hidden = !open;
  identity.className = open ? 'open' : '';
  identity.replaceChildren(...(open ? ['open broker'] : [
    element('span', { class: 'name' }, who.name),
    element('span', { class: 'detail' }, [who.kind, ...(who.teams || [])].join(' · ')),
    element('button', { class: 'secondary', id: 'sign-out', type: 'button', onclick: () => signedOut('') }, 'Sign out'),
  ]));
  identity.hidden = false;
}

/** Asks the broker who the token is; shows the questions, or the sign-in panel with `refusal`. */
async function enter(refusal) {
  const response = await request('GET', '/whoami');
  if (response.status === 401) {
    signedOut(refusal && `${refusal}: ${await errorMessage(response)}`);
    return;
  }
  if (!response.ok) throw new Error(await errorMessage(response));
  showIdentity(await response.json());
  $('sign-in').hidden = true;
  $('questions').hidden = false;
  $('only-for').hidden = false;
  await start();
}

function signedOut(message) {
  watching?.abort();
  watching = null;
  sessionStorage.removeItem(TOKEN);
  questions.clear();
  settledOrder.length = 0;
  render();
  $('questions').hidden = true;
  $('only-for').hidden = true;
  $('answering-as').hidden = true;
  $('identity').hidden = true;
  connection('', '');
  $('oidc').hidden = !oidc;
  $('sign-in-error').textContent = message || '';
  $('sign-in').hidden = false;
}

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const token = $('token').value.trim();
  $('token').value = '';
  if (!token) return;
  sessionStorage.setItem(TOKEN, token);
  enter('That token was not accepted').catch(unreachable);
});

// OIDC: the authorization-code flow with PKCE (RFC 7636), the page being a public client.

function redirectUri() {
  return location.origin + location.pathname;
}

function randomText(bytes) {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function discover() {
  const response = await fetch(`${oidc.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`the identity provider's discovery document answered HTTP ${response.status}`);
  const discovery = await response.json();
  if (discovery.issuer !== oidc.issuer) throw new Error(`the discovery document is for ${discovery.issuer}, not ${oidc.issuer}`);
  return discovery;
}

async function signInAtIssuer() {
  if (!crypto.subtle) throw new Error('signing in with OIDC needs the dashboard on HTTPS (or localhost)');
  const discovery = await discover();
  const verifier = randomText(32);
  const state = randomText(16);
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem(PENDING_SIGN_IN, JSON.stringify({ state, verifier, tokenEndpoint: discovery.token_endpoint }));
  const url = new URL(discovery.authorization_endpoint);
  for (const [name, value] of Object.entries({
    response_type: 'code', client_id: oidc.clientId, redirect_uri: redirectUri(), scope: oidc.scopes.join(' '),
    state, code_challenge: challenge, code_challenge_method: 'S256',
  })) url.searchParams.set(name, value);
  location.assign(url.href);
}

/** The issuer's answer in this page's address, taken out of it (and out of the history), or null. */
function issuerResponse() {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) return null;
  history.replaceState(null, '', location.pathname);
  const started = JSON.parse(sessionStorage.getItem(PENDING_SIGN_IN) || 'null');
  sessionStorage.removeItem(PENDING_SIGN_IN);
  return { params, started };
}

/** Trades the code for an access token at the issuer's token endpoint. */
async function accessToken({ params, started }) {
  if (params.has('error')) throw new Error(`the identity provider did not sign you in: ${params.get('error_description') || params.get('error')}`);
  if (!oidc || !started || params.get('state') !== started.state) throw new Error('this sign-in was not started from this page; sign in again');
  if (params.has('iss') && params.get('iss') !== oidc.issuer) throw new Error(`the sign-in came back from ${params.get('iss')}, not ${oidc.issuer}`);
  const response = await fetch(started.tokenEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri(),
      client_id: oidc.clientId, code_verifier: started.verifier,
    }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || !body.access_token) {
    throw new Error(`the identity provider issued no token: ${body.error_description || body.error || `HTTP ${response.status}`}`);
  }
  return body.access_token;
}

$('oidc').addEventListener('click', () => {
  $('sign-in-error').textContent = '';
  signInAtIssuer().catch((error) => { $('sign-in-error').textContent = `Cannot sign in: ${error.message}`; });
});

async function boot() {
  const config = await fetch('/auth/config', { cache: 'no-store' });
  oidc = config.ok ? (await config.json()).oidc || null : null;
  const returned = issuerResponse();
  if (returned) {
    try {
      sessionStorage.setItem(TOKEN, await accessToken(returned));
    } catch (error) {
      signedOut(`Cannot sign in: ${error.message}`);
      return;
    }
    await enter('The broker did not accept the token from the identity provider');
    return;
  }
  await enter(sessionStorage.getItem(TOKEN) ? ENDED : '');
}

boot().catch(unreachable);
