'use strict';
// The dashboard lists pending questions once, then follows every change over the REST API's watch
// (Server-Sent Events), resuming from the last event id when the connection drops. The history searches the
// broker's list (newest first); a question's detail view (#/questions/<id>) shows its events. When the broker
// authenticates (it answers 401), people sign in first: with a pasted bearer token, or at the OIDC
// issuer (authorization code with PKCE) where the broker offers it. The token lives in this tab's
// sessionStorage and goes with every request, the watch included: that is why the watch is read with
// fetch, as EventSource cannot send headers.
const TOKEN = 'ark-broker.token';
const PENDING_SIGN_IN = 'ark-broker.oidc';
const CHANGES = new Set(['question_created', 'question_answered', 'question_cancelled', 'question_expired', 'question_delivered',
  'question_reminded', 'question_escalated']);
const ENDED = 'Your sign-in has ended; sign in again';

const TITLE = document.title;
const NOTIFY = 'ark-broker.notify';
const questions = new Map();
const settledOrder = [];
/** Aborts the list and watch of the current view. */
let watching = null;
/** How the broker lets people sign in at the issuer, or null. */
let oidc = null;
/** The history as last searched: its filters, the questions shown, and where the next page starts. */
const past = { query: '', items: [], next: null, loading: null };
/** The question the detail view shows, or null. */
let detailId = null;

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
    else if (name === 'onsubmit') node.addEventListener('submit', value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago (or how soon) an instant is, as people say it: "just now", "3 min ago", "in 2 days". */
function age(instant, now = Date.now()) {
  const at = new Date(instant);
  const distance = Math.abs(now - at.getTime());
  const [count, unit] = distance < 45_000 ? [0, '']
    : distance < HOUR ? [Math.max(1, Math.round(distance / MINUTE)), 'min']
      : distance < DAY ? [Math.round(distance / HOUR), 'h']
        : distance < 7 * DAY ? [Math.round(distance / DAY), 'day'] : [null, ''];
  if (count === null) return at.toLocaleDateString();
  if (count === 0) return at.getTime() > now ? 'in a moment' : 'just now';
  const amount = unit === 'day' ? `${count} day${count === 1 ? '' : 's'}` : `${count} ${unit}`;
  return at.getTime() > now ? `in ${amount}` : `${amount} ago`;
}

/** An instant as its age, with the date and time it is on hover; kept current by {@link refreshAges}. */
function time(instant) {
  return element('time', { datetime: instant, title: new Date(instant).toLocaleString() }, age(instant));
}

function refreshAges() {
  const now = Date.now();
  for (const shown of document.querySelectorAll('time[datetime]')) shown.textContent = age(shown.dateTime, now);
}

setInterval(refreshAges, 30_000);

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

async function errorOf(response) {
  const json = await response.json().catch(() => ({}));
  return { message: json.error?.message || `HTTP ${response.status}`, field: json.error?.field };
}

async function errorMessage(response) {
  return (await errorOf(response)).message;
}

/** A GET whose JSON the page needs; null (and the sign-in panel) when the sign-in has ended. */
async function read(path) {
  const response = await request('GET', path);
  if (response.status === 401) {
    signedOut(`${ENDED}: ${await errorMessage(response)}`);
    return null;
  }
  if (!response.ok) throw new Error(await errorMessage(response));
  return response.json();
}

const questionPath = (q) => `/questions/${encodeURIComponent(q.id)}`;

/** Signed in, the broker records who answers; the open broker takes the name people give. */
function answeredBy() {
  return $('answering-as').hidden ? '' : me.value.trim();
}

/**
 * Sends a change of the question from its card, with the card's controls disabled meanwhile. Returns null
 * when it was done (the page then shows the question as the broker returned it), else the broker's error.
 */
async function send(card, method, path, body) {
  const controls = [...card.querySelectorAll('button, input, select, textarea')].filter((c) => !c.disabled);
  controls.forEach((c) => { c.disabled = true; });
  let failure;
  try {
    const response = await request(method, path, { body });
    if (response.status === 401) {
      signedOut(`${ENDED}: ${await errorMessage(response)}`);
      return null;
    }
    if (response.ok) {
      apply(await response.json());
      return null;
    }
    failure = await errorOf(response);
  } catch (error) {
    failure = { message: `cannot reach the broker: ${error.message}` };
  }
  controls.forEach((c) => { c.disabled = false; });
  return failure;
}

/** Shows an error in the card's status line, read out by screen readers. */
function showError(card, failure) {
  const status = card.querySelector(':scope > .card-error');
  status.textContent = failure ? failure.message : '';
}

async function answerWith(q, card, body) {
  const by = answeredBy();
  showError(card, await send(card, 'PATCH', questionPath(q), by ? { ...body, answeredBy: by } : body));
}

// Answering: the controls a question asks for.

function answerControls(q, card) {
  if (q.kind === 'approval') return approvalForm(q, card);
  if (q.responseSchema && q.responseSchema.properties) return schemaForm(q, card);
  const actions = element('div', { class: 'actions' });
  if (q.options && q.options.length) {
    const group = element('div', { class: 'options', role: 'group', 'aria-label': 'Answers' });
    for (const option of q.options) {
      group.append(element('button', { type: 'button', class: 'option', onclick: () => answerWith(q, card, { response: option }), 'data-option': option }, option));
    }
    actions.append(group);
  } else {
    const id = `answer-${q.id}`;
    const text = element('textarea', { id, placeholder: 'Your answer' });
    const go = () => {
      if (!text.value.trim()) {
        showError(card, { message: 'Write an answer first.' });
        text.focus();
        return;
      }
      answerWith(q, card, { response: text.value.trim() });
    };
    actions.append(element('label', { for: id, class: 'visually-hidden' }, 'Your answer'), text,
      element('button', { type: 'button', onclick: go }, 'Answer'));
  }
  return actions;
}

/** Marks `field` as wrong with `message` (or as right, without one), its error read out beside it. */
function flag(field, error, message) {
  error.textContent = message || '';
  if (message) field.setAttribute('aria-invalid', 'true');
  else field.removeAttribute('aria-invalid');
}

/**
 * The arguments of the call an approval asks about, shown for editing: approving sends them back when edited (the
 * broker then hands the edited ones to the caller). Returns the field, and a reader that gives the arguments to
 * send (undefined when unchanged) or null after marking the field wrong.
 */
function argumentsField(q) {
  const id = `arguments-${q.id}`;
  const shown = JSON.stringify(q.arguments, null, 2);
  const text = element('textarea', { id, class: 'arguments', spellcheck: 'false', rows: Math.min(12, shown.split('\n').length),
    'aria-describedby': `${id}-error` }, shown);
  const error = element('span', { class: 'field-error', id: `${id}-error` });
  const field = element('div', { class: 'field' },
    element('label', { for: id }, 'Arguments of the call (JSON; edit them before approving)'), text, error);
  const read = () => {
    let edited;
    try {
      edited = JSON.parse(text.value);
    } catch (failure) {
      flag(text, error, `Not JSON: ${failure.message}`);
      return null;
    }
    if (!edited || typeof edited !== 'object' || Array.isArray(edited)) {
      flag(text, error, 'The arguments must be a JSON object.');
      return null;
    }
    flag(text, error, '');
    return JSON.stringify(edited) === JSON.stringify(q.arguments) ? undefined : edited;
  };
  return { field, text, read };
}

/**
 * Approve or reject, with a reason (required where the question says so) and, where the question shows the call's
 * arguments, those arguments, edited or not. On an open broker the approver is the name given in "Answering as":
 * nothing else says who decided.
 */
function approvalForm(q, card) {
  const required = Boolean(q.reasonRequired ?? q.approval?.reasonRequired);
  const id = `reason-${q.id}`;
  const reason = element('textarea', { id, required, 'aria-describedby': `${id}-error` });
  const fieldError = element('span', { class: 'field-error', id: `${id}-error` });
  const args = q.arguments && typeof q.arguments === 'object' ? argumentsField(q) : null;
  const decide = (action) => {
    const text = reason.value.trim();
    if (!$('answering-as').hidden && !me.value.trim()) {
      fieldError.textContent = 'Say who decides: fill in “Answering as” at the top first.';
      me.focus();
      return;
    }
    if (required && !text) {
      flag(reason, fieldError, 'Give a reason.');
      reason.focus();
      return;
    }
    flag(reason, fieldError, '');
    // A rejected call runs with no arguments, edited or not.
    const edited = action === 'approved' && args ? args.read() : undefined;
    if (edited === null) {
      args.text.focus();
      return;
    }
    answerWith(q, card, { decision: { action, ...(text ? { reason: text } : {}), ...(edited ? { arguments: edited } : {}) } });
  };
  return element('form', { class: 'approval', novalidate: true, onsubmit: (event) => event.preventDefault() },
    args?.field,
    element('label', { for: id }, `Reason${required ? ' (required)' : ' (optional)'}`), reason, fieldError,
    element('div', { class: 'actions' },
      element('button', { type: 'button', class: 'approve', onclick: () => decide('approved') }, 'Approve'),
      element('button', { type: 'button', class: 'reject', onclick: () => decide('rejected') }, 'Reject')));
}

/** Choices of an enum property: MCP elicitation's `enum` (+ `enumNames`) or `oneOf` of `{const, title}`. */
function choices(property) {
  if (Array.isArray(property.enum)) {
    return property.enum.map((value, i) => ({ value, title: property.enumNames?.[i] ?? String(value) }));
  }
  if (Array.isArray(property.oneOf) && property.oneOf.every((o) => o && 'const' in o)) {
    return property.oneOf.map((o) => ({ value: o.const, title: o.title ?? String(o.const) }));
  }
  return null;
}

const INPUT_TYPES = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/** One input for one property of the schema, with its label, description and error line. */
function schemaField(q, name, property, required) {
  const id = `f-${q.id}-${name}`;
  const described = [`${id}-error`];
  const description = property.description ? element('span', { class: 'field-help', id: `${id}-help` }, property.description) : null;
  if (description) described.unshift(`${id}-help`);
  const common = { id, name, required, 'aria-describedby': described.join(' ') };
  const options = choices(property);
  let input;
  if (options) {
    input = element('select', common,
      ...(required && property.default === undefined ? [element('option', { value: '' }, 'Choose…')] : []),
      ...(required ? [] : [element('option', { value: '' }, '—')]),
      ...options.map((o, i) => element('option', { value: String(i), selected: o.value === property.default }, o.title)));
  } else if (property.type === 'boolean') {
    input = element('input', { ...common, type: 'checkbox', required: false, checked: property.default === true });
  } else if (property.type === 'number' || property.type === 'integer') {
    input = element('input', {
      ...common, type: 'number', inputmode: property.type === 'integer' ? 'numeric' : 'decimal',
      step: property.type === 'integer' ? '1' : 'any', min: property.minimum, max: property.maximum, value: property.default,
    });
  } else {
    input = element('input', {
      ...common, type: INPUT_TYPES[property.format] || 'text', minlength: property.minLength,
      maxlength: property.maxLength, value: property.default,
    });
  }
  const title = property.title || name;
  const label = element('label', { for: id }, title, required ? element('span', { class: 'required' }, ' (required)') : null);
  const field = element('div', { class: `field ${property.type === 'boolean' ? 'checkbox' : ''}`, 'data-field': name },
    ...(property.type === 'boolean' ? [input, label] : [label, input]), description,
    element('span', { class: 'field-error', id: `${id}-error` }));
  return { name, property, required, input, options, field };
}

/** The value a field holds, or a message saying why it is not one the schema allows. */
function fieldValue({ property, required, input, options }) {
  if (property.type === 'boolean') return { value: input.checked };
  const raw = input.value.trim();
  if (raw === '') return required ? { error: 'Required.' } : {};
  if (options) return { value: options[Number(raw)].value };
  if (property.type === 'number' || property.type === 'integer') {
    const number = Number(raw);
    if (!Number.isFinite(number)) return { error: 'Must be a number.' };
    if (property.type === 'integer' && !Number.isInteger(number)) return { error: 'Must be a whole number.' };
    if (property.minimum !== undefined && number < property.minimum) return { error: `Must be at least ${property.minimum}.` };
    if (property.maximum !== undefined && number > property.maximum) return { error: `Must be at most ${property.maximum}.` };
    return { value: number };
  }
  if (property.minLength !== undefined && raw.length < property.minLength) return { error: `Must be at least ${property.minLength} characters.` };
  if (property.maxLength !== undefined && raw.length > property.maxLength) return { error: `Must be at most ${property.maxLength} characters.` };
  if (property.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(raw)) return { error: 'Must be an email address.' };
  if (property.format === 'uri' && !URL.canParse(raw)) return { error: 'Must be an address (URL).' };
  if (property.format === 'date-time') {
    const at = new Date(raw);
    return Number.isNaN(at.getTime()) ? { error: 'Must be a date and time.' } : { value: at.toISOString() };
  }
  return { value: raw };
}

function markField(field, message) {
  flag(field.input, field.field.querySelector('.field-error'), message);
}

/** A form generated from the question's `responseSchema`, validated here as the broker will validate it. */
function schemaForm(q, card) {
  const schema = q.responseSchema;
  const required = new Set(schema.required || []);
  const fields = Object.entries(schema.properties).map(([name, property]) => schemaField(q, name, property, required.has(name)));
  const submit = async (event) => {
    event.preventDefault();
    const answer = {};
    let firstInvalid = null;
    for (const field of fields) {
      const { value, error } = fieldValue(field);
      markField(field, error);
      if (error && !firstInvalid) firstInvalid = field;
      if (value !== undefined) answer[field.name] = value;
    }
    if (firstInvalid) {
      showError(card, { message: 'Some answers need another look.' });
      firstInvalid.input.focus();
      return;
    }
    const by = answeredBy();
    const failure = await send(card, 'PATCH', questionPath(q), { answer, ...(by ? { answeredBy: by } : {}) });
    showError(card, failure);
    if (!failure) return;
    // The broker names the field it refused, in `field` or in its message.
    const refused = fields.find((f) => f.name === failure.field)
      || fields.find((f) => new RegExp(`(^|[^\\w])${f.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w]|$)`).test(failure.message));
    if (refused) {
      markField(refused, failure.message);
      refused.input.focus();
    }
  };
  return element('form', { class: 'schema-form', novalidate: true, onsubmit: submit },
    ...fields.map((f) => f.field), element('div', { class: 'actions' }, element('button', { type: 'submit' }, 'Send answer')));
}

/** Cancelling is apart from answering: it asks for a reason and a confirmation first. */
function cancelControls(q, card) {
  const id = `cancel-reason-${q.id}`;
  const open = element('button', { type: 'button', class: 'cancel-open', 'aria-expanded': 'false' }, 'Cancel question…');
  const reason = element('textarea', { id, required: true, 'aria-describedby': `${id}-error` });
  const fieldError = element('span', { class: 'field-error', id: `${id}-error` });
  const panel = element('form', { class: 'cancel-confirm', hidden: true, novalidate: true, 'aria-label': 'Cancel this question' },
    element('label', { for: id }, 'Why cancel it? (kept in its history)'), reason, fieldError,
    element('div', { class: 'actions' },
      element('button', { type: 'submit', class: 'danger' }, 'Cancel the question'),
      element('button', { type: 'button', class: 'secondary', onclick: () => toggle(false) }, 'Keep it')));
  function toggle(show) {
    panel.hidden = !show;
    open.setAttribute('aria-expanded', String(show));
    (show ? reason : open).focus();
  }
  open.addEventListener('click', () => toggle(panel.hidden));
  panel.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = reason.value.trim();
    fieldError.textContent = text ? '' : 'Say why, for whoever asked.';
    if (!text) {
      reason.focus();
      return;
    }
    showError(card, await send(card, 'DELETE', `${questionPath(q)}?reason=${encodeURIComponent(text)}`));
  });
  return element('div', { class: 'cancel-area' }, open, panel);
}

// Cards

function meta(q) {
  return element('div', { class: 'meta' },
    element('span', { class: `badge ${q.priority}` }, q.priority),
    q.status !== 'pending' ? element('span', { class: `badge status ${q.status}` }, q.status) : null,
    element('span', {}, `${q.sender || 'unnamed asker'} → ${recipients(q).join(', ')}`),
    q.escalatedAt ? element('span', { class: 'badge escalated' }, 'escalated') : null,
    element('span', {}, 'asked ', time(q.createdAt)),
    q.status === 'pending' && q.expiresAt ? element('span', {}, 'expires ', time(q.expiresAt)) : null,
    (q.deliveries || []).length ? element('span', {}, `shown in ${q.deliveries.map((d) => d.label || d.channel).join(', ')}`) : null,
    element('a', { href: `#/questions/${encodeURIComponent(q.id)}`, class: 'details', 'aria-label': `Details and history of “${q.content.slice(0, 80)}”` }, 'Details'));
}

function contextOf(q, folded) {
  if (!q.context) return null;
  const rendered = renderContext(q.context);
  return folded ? element('details', { class: 'folded' }, element('summary', {}, 'Context'), rendered) : rendered;
}

function pendingCard(q) {
  const card = element('article', { class: `card ${q.priority}`, 'data-id': q.id, 'aria-label': q.content.slice(0, 120) },
    meta(q), element('div', { class: 'content' }, q.content), contextOf(q, false));
  card.append(answerControls(q, card), element('div', { class: 'card-error error', role: 'alert' }), cancelControls(q, card));
  return card;
}

function described(value) {
  return value && typeof value === 'object'
    ? Object.entries(value).map(([key, item]) => `${key}: ${typeof item === 'object' ? JSON.stringify(item) : item}`).join(', ')
    : String(value);
}

/** Who is asked: the recipient, and after an escalation those it was escalated to. */
function recipients(q) {
  const added = q.escalatedAt && q.escalation ? q.escalation.escalateTo : [];
  return [q.recipient, ...added.filter((to) => to !== q.recipient)];
}

/** How the question stands, as the text and times of its outcome line. */
function outcome(q) {
  switch (q.status) {
    case 'pending':
      return ['Waiting for an answer'];
    case 'expired':
      return ['Expired ', time(q.expiresAt), ' without an answer'];
    case 'cancelled':
      return ['Cancelled ', time(q.updatedAt)];
    default:
      if (q.answeredOnTimeout) return [`Nobody answered in time; answered by default: ${q.decision ? q.decision.action : q.response}`];
      if (q.decision) {
        const decided = q.decision.action === 'approved' ? 'Approved' : 'Rejected';
        const by = q.decision.decidedBy || q.answeredBy;
        return [`${decided}${by ? ` by ${by}` : ''}${q.decision.reason ? `: ${q.decision.reason}` : ''}`
          + (q.decision.arguments ? `, with the arguments edited to ${JSON.stringify(q.decision.arguments)}` : '')];
      }
      return [`Answered${q.answeredBy ? ` by ${q.answeredBy}` : ''}: ${q.answer !== undefined && q.answer !== null ? described(q.answer) : q.response}`];
  }
}

/** A question as a record: what was asked and how it stands (the history shows pending ones this way too). */
function settledCard(q, { folded = true } = {}) {
  return element('article', { class: 'card', 'data-id': q.id, 'aria-label': q.content.slice(0, 120) },
    meta(q), element('div', { class: 'content' }, q.content), contextOf(q, folded),
    element('div', { class: `outcome ${q.status}` }, ...outcome(q)));
}

/** Cards by id and version: a card that did not change keeps its node, and with it what people typed and focus. */
const cards = new Map();

function cardFor(q, kind, make) {
  const key = `${kind}:${q.id}`;
  const known = cards.get(key);
  if (known && known.version === q.resourceVersion) return known.node;
  const node = make(q);
  cards.set(key, { version: q.resourceVersion, node });
  return node;
}

/** Puts exactly these nodes in the container, moving only those out of place. */
function place(container, nodes) {
  nodes.forEach((node, index) => {
    if (container.children[index] !== node) container.insertBefore(node, container.children[index] || null);
  });
  while (container.children.length > nodes.length) container.lastElementChild.remove();
}

function empty(text) {
  return element('div', { class: 'empty' }, text);
}

function render() {
  const only = filter.value.trim();
  const shown = (q) => !only || recipients(q).includes(only);
  const rank = { high: 0, medium: 1, low: 2 };
  const pending = [...questions.values()].filter((q) => q.status === 'pending' && shown(q))
    .sort((a, b) => rank[a.priority] - rank[b.priority] || a.createdAt.localeCompare(b.createdAt));
  place($('pending'), pending.length ? pending.map((q) => cardFor(q, 'pending', pendingCard))
    : [empty('Nothing is waiting for an answer.')]);
  $('pending-count').textContent = pending.length ? `(${pending.length})` : '';
  document.title = pending.length ? `(${pending.length}) ${TITLE}` : TITLE;
  const settled = settledOrder.map((id) => questions.get(id)).filter((q) => q && shown(q)).slice(0, 20);
  place($('settled'), settled.length ? settled.map((q) => cardFor(q, 'settled', settledCard))
    : [empty('Nothing settled since this page opened; older questions are in the History.')]);
  for (const [key, { node }] of cards) {
    if (!node.isConnected) cards.delete(key);
  }
}

function apply(q) {
  const known = questions.get(q.id);
  if (known && Number(known.resourceVersion) >= Number(q.resourceVersion)) return;
  if (!known && q.status === 'pending') notifyOf(q);
  questions.set(q.id, q);
  if (q.status !== 'pending') {
    const at = settledOrder.indexOf(q.id);
    if (at >= 0) settledOrder.splice(at, 1);
    settledOrder.unshift(q.id);
    settledOrder.length = Math.min(settledOrder.length, 100);
  }
  render();
  const shownAt = past.items.findIndex((item) => item.id === q.id);
  if (shownAt >= 0) {
    past.items[shownAt] = q;
    renderHistory();
  }
  if (detailId === q.id) showDetail(q.id).catch(detailFailed);
}

/** A settled question that outlived its retention leaves the broker: it leaves the lists shown here too. */
function forget(q) {
  questions.delete(q.id);
  const at = settledOrder.indexOf(q.id);
  if (at >= 0) settledOrder.splice(at, 1);
  render();
  const shownAt = past.items.findIndex((item) => item.id === q.id);
  if (shownAt >= 0) {
    past.items.splice(shownAt, 1);
    renderHistory();
  }
}

// Desktop notifications, for those who ask for them: a question that arrives while the page is out of sight.

const notify = $('notify');

function notifying() {
  return notify.checked && Notification.permission === 'granted';
}

function notifyOf(q) {
  const only = filter.value.trim();
  if (!notifying() || document.visibilityState === 'visible' || (only && !recipients(q).includes(only))) return;
  const shown = new Notification(`Question from ${q.sender || 'an unnamed asker'}`, { body: q.content.slice(0, 200), tag: q.id });
  shown.onclick = () => {
    window.focus();
    location.hash = `#/questions/${encodeURIComponent(q.id)}`;
    shown.close();
  };
}

if ('Notification' in window) {
  notify.checked = localStorage.getItem(NOTIFY) === 'on' && Notification.permission === 'granted';
  notify.addEventListener('change', async () => {
    $('notify-status').textContent = '';
    if (!notify.checked) {
      localStorage.removeItem(NOTIFY);
      return;
    }
    if (await Notification.requestPermission() === 'granted') {
      localStorage.setItem(NOTIFY, 'on');
    } else {
      notify.checked = false;
      $('notify-status').textContent = 'This browser does not allow notifications from this page; its site settings can.';
    }
  });
}

// History: the broker's list, newest first, with its filters, a page at a time.

function historyQuery() {
  const params = new URLSearchParams({ order: 'newest', limit: '20' });
  for (const [name, id] of [['q', 'h-q'], ['status', 'h-status'], ['priority', 'h-priority'], ['sender', 'h-sender'], ['recipient', 'h-recipient']]) {
    const value = $(id).value.trim();
    if (value) params.set(name, value);
  }
  return params.toString();
}

async function loadHistory(more) {
  const query = more ? past.query : historyQuery();
  const next = more ? past.next : null;
  const loading = `${query}|${next}`;
  if (past.loading === loading) return;
  past.loading = loading;
  $('history-error').textContent = '';
  $('load-more').disabled = true;
  try {
    const page = await read(`/questions?${query}${next ? `&continue=${encodeURIComponent(next)}` : ''}`);
    if (!page || past.loading !== loading) return;
    past.query = query;
    past.items = more ? [...past.items, ...page.items] : page.items;
    past.next = page.continue || null;
    renderHistory();
  } catch (error) {
    $('history-error').textContent = `Cannot search: ${error.message}`;
  } finally {
    if (past.loading === loading) past.loading = null;
    $('load-more').disabled = false;
  }
}

function renderHistory() {
  place($('history'), past.items.length
    ? past.items.map((q) => cardFor(q, 'history', (item) => settledCard(item)))
    : [empty('No question matches.')]);
  $('load-more').hidden = !past.next;
}

$('history-form').addEventListener('submit', (event) => {
  event.preventDefault();
  loadHistory(false);
});
for (const id of ['h-status', 'h-priority']) $(id).addEventListener('change', () => loadHistory(false));
$('load-more').addEventListener('click', () => loadHistory(true));

// The detail view: one question and everything that happened to it.

const ACTIONS = {
  question_created: 'Asked', question_answered: 'Answered', question_cancelled: 'Cancelled',
  question_expired: 'Expired', question_delivered: 'Shown in a channel',
  question_reminded: 'Reminded', question_escalated: 'Escalated',
};

function eventItem(action) {
  const by = action.by || {};
  const who = by.principal ? `${by.principal}${by.kind ? ` (${by.kind})` : ''}` : 'the broker';
  return element('li', { class: 'event' },
    element('div', {}, element('strong', {}, ACTIONS[action.type] || action.type), ' ', time(action.at)),
    element('div', {}, `by ${who}`, by.actingFor ? ` acting for ${by.actingFor}` : '', by.method ? `, signed in by ${by.method}` : ''),
    by.address || by.userAgent ? element('div', { class: 'event-client' }, [by.address, by.userAgent].filter(Boolean).join(' · ')) : null,
    action.reason ? element('div', { class: 'event-reason' }, `Reason: ${action.reason}`) : null);
}

async function showDetail(id) {
  const [q, events] = await Promise.all([
    read(`/questions/${encodeURIComponent(id)}`), read(`/questions/${encodeURIComponent(id)}/events`)]);
  if (!q || !events || detailId !== id) return;
  $('detail-error').textContent = '';
  $('detail-title').textContent = q.status === 'pending' ? 'Waiting for an answer' : `Question (${q.status})`;
  place($('detail'), [cardFor(q, 'detail', (item) => (item.status === 'pending' ? pendingCard(item) : settledCard(item, { folded: false })))]);
  $('events').replaceChildren(...(events.items.length ? events.items.map(eventItem) : [element('li', {}, 'Nothing recorded.')]));
}

function detailFailed(error) {
  $('detail-error').textContent = `Cannot show this question: ${error.message}`;
}

/** Shows the view the address names: #/ (waiting), #/history, #/questions/<id>. */
function route() {
  if ($('questions').hidden) return;
  const hash = location.hash || '#/';
  const detail = hash.match(/^#\/questions\/([^/?#]+)$/);
  const view = detail ? 'detail' : hash.startsWith('#/history') ? 'history' : 'waiting';
  for (const name of ['waiting', 'history', 'detail']) $(`${name}-view`).hidden = name !== view;
  for (const [link, current] of [['nav-waiting', view === 'waiting'], ['nav-history', view === 'history']]) {
    if (current) $(link).setAttribute('aria-current', 'page');
    else $(link).removeAttribute('aria-current');
  }
  detailId = detail ? decodeURIComponent(detail[1]) : null;
  if (view === 'detail') {
    $('detail').replaceChildren();
    $('events').replaceChildren();
    $('detail-error').textContent = '';
    showDetail(detailId).catch(detailFailed);
  } else if (view === 'history' && !past.query) {
    loadHistory(false);
  }
  $(`${view}-title`).focus({ preventScroll: true });
}

window.addEventListener('hashchange', route);

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
              else if (frame.event === 'question_removed') forget(JSON.parse(frame.data.join('\n')));
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
  $('views').hidden = false;
  $('notify-label').hidden = !('Notification' in window);
  route();
  await start();
}

function signedOut(message) {
  watching?.abort();
  watching = null;
  sessionStorage.removeItem(TOKEN);
  questions.clear();
  settledOrder.length = 0;
  cards.clear();
  Object.assign(past, { query: '', items: [], next: null, loading: null });
  render();
  renderHistory();
  $('questions').hidden = true;
  $('views').hidden = true;
  $('answering-as').hidden = true;
  $('notify-label').hidden = true;
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
