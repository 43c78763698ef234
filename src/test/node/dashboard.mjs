// Drives the dashboard in a real browser (the system's Chromium, through playwright-core) against a
// running broker, and prints one JSON line with what a person saw and what the API then said.
// Usage: node dashboard.mjs <rest base url> <chromium executable>
import { launch } from './browser.mjs';

const [base, executablePath] = process.argv.slice(2);
const tag = Math.random().toString(36).slice(2, 8);
const recipient = `ark://users/d-${tag}`;

async function rest(method, path, body) {
  const response = await fetch(base + path, {
    method, headers: { 'Content-Type': 'application/json' }, body: body && JSON.stringify(body),
  });
  return response.json();
}

const ask = (content, extra = {}) => rest('POST', '/questions',
  { recipient, sender: 'ark://agents/dashboard-test', content, ...extra });

const MARKDOWN = [
  '## Diff summary', '**tests** pass and _lint_ too', '- first change', '- second change', '`mvn verify`',
  '[the docs](https://example.com/docs)', '[a trap](javascript:window.pwned=2)',
  '<script>window.pwned=3</script><img src=x onerror="window.pwned=4">',
].join('\n');
const JSON_CONTEXT = JSON.stringify({
  pr: 42, url: 'https://example.com/pr/42', checks: { unit: 'passed', e2e: null },
  blob: 'x'.repeat(300), files: ['src/main/java/ark/broker/http/SomethingVeryLongIndeed.java'],
});
const FORM = {
  type: 'object',
  properties: {
    environment: { type: 'string', title: 'Environment', enum: ['staging', 'production'] },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 10, description: 'How many to run' },
    notify: { type: 'boolean', title: 'Notify the team', default: true },
  },
  required: ['environment', 'replicas'],
};

/** Fills a schema form wrong, then right; what the page said on the way. */
async function useForm(page, card, seen) {
  await page.click(`${card} button:text("Send answer")`);
  seen.requiredErrors = await page.$$eval(`${card} .field-error`, (errors) => errors.map((e) => e.textContent).filter(Boolean));
  await page.selectOption(`${card} select[name="environment"]`, { label: 'production' });
  await page.fill(`${card} input[name="replicas"]`, '11');
  await page.click(`${card} button:text("Send answer")`);
  seen.rangeError = await page.textContent(`${card} [data-field="replicas"] .field-error`);
  seen.focusedAfterError = await page.evaluate(() => document.activeElement?.name);
  await page.fill(`${card} input[name="replicas"]`, '2');
  await page.click(`${card} button:text("Send answer")`);
}

/** Rejects without a reason (refused here), then with one. */
async function useApproval(page, card, seen) {
  await page.click(`${card} button:text("Reject")`);
  seen.reasonError = await page.textContent(`${card} .approval .field-error`);
  await page.fill(`${card} .approval textarea`, 'touches production data');
  await page.click(`${card} button:text("Reject")`);
}

/**
 * Serves a question the broker does not hold at /questions/<id> (GET, PATCH) and its events, answering the first
 * PATCH with `refusal` and the second with the question as `settle` makes it: the page's side of typed answers,
 * tested whatever the broker supports. Returns the bodies the page sent.
 */
async function stub(page, question, refusal, settle) {
  const sent = [];
  let current = question;
  await page.route(`**/questions/${question.id}`, async (route) => {
    const request = route.request();
    if (request.method() === 'PATCH') {
      sent.push(request.postDataJSON());
      if (sent.length === 1 && refusal) {
        await route.fulfill({ status: 400, json: { error: { code: 400, reason: 'BadRequest', message: refusal } } });
        return;
      }
      current = settle(current, request.postDataJSON());
    }
    await route.fulfill({ json: current });
  });
  await page.route(`**/questions/${question.id}/events`, (route) => route.fulfill({ json: { question: question.id, items: [] } }));
  return sent;
}

function stubQuestion(id, extra) {
  return {
    id, recipient, sender: 'ark://agents/dashboard-test', content: `Stub ${id}`, priority: 'medium', blocking: true,
    status: 'pending', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), resourceVersion: '1', ...extra,
  };
}

const answered = (q, extra) => ({ ...q, ...extra, status: 'answered', resourceVersion: String(Number(q.resourceVersion) + 1) });

// Before the page opens: an answered question for the history to find, and more than a page of others.
const archived = await ask(`Archived-${tag}: publish the release notes?`, { context: 'Written **last week**' });
await rest('PATCH', `/questions/${archived.id}`, { response: 'published', answeredBy: 'ark://users/earlier' });
for (let i = 0; i < 21; i++) await ask(`bulk-${tag} number ${i}`, { recipient: `ark://users/bulk-${tag}` });

const browser = await launch(executablePath);
const seen = { consoleErrors: [] };
try {
  const page = await browser.newPage();
  page.on('console', (message) => { if (message.type() === 'error') seen.consoleErrors.push(message.text()); });
  page.on('pageerror', (error) => seen.consoleErrors.push(error.message));
  await page.goto(base + '/');
  await page.waitForSelector('#connection.live');
  seen.title = await page.title();
  seen.identity = await page.textContent('#identity');
  const icons = await page.$$eval('link[rel="icon"]', (links) => links.map((l) => l.getAttribute('href')));
  seen.icons = {};
  for (const icon of ['/favicon.ico', ...icons.map((href) => `/${href}`)]) {
    const response = await fetch(base + icon);
    seen.icons[icon] = `${response.status} ${response.headers.get('content-type')}`;
  }
  await page.fill('#me', `ark://users/person-${tag}`);
  await page.dispatchEvent('#me', 'change');
  await page.fill('#filter', recipient);
  seen.emptyText = await page.textContent('#pending');
  seen.titleWithNone = await page.title();

  // A question asked after the page opened appears without a reload, and its option buttons answer it.
  const choice = await ask('Ship release 2.0?', { options: ['ship', 'wait'], priority: 'high', context: 'All checks are green' });
  const card = `#pending [data-id="${choice.id}"]`;
  await page.waitForSelector(card);
  seen.cardText = await page.textContent(card);
  seen.titleWithOne = await page.title();
  seen.age = await page.$eval(`${card} .meta time`, (shown) => ({
    text: shown.textContent, title: shown.title, expected: new Date(shown.dateTime).toLocaleString(),
  }));
  await page.click(`${card} button[data-option="ship"]`);
  await page.waitForSelector(`#settled [data-id="${choice.id}"]`);
  seen.pendingAfterClick = await page.$$eval(card, (cards) => cards.length);
  seen.settledText = await page.textContent(`#settled [data-id="${choice.id}"]`);
  seen.choiceStored = await rest('GET', `/questions/${choice.id}`);

  // An option named "cancel" is an answer, and does not look like cancelling.
  const named = await ask('Proceed or cancel the deploy?', { options: ['proceed', 'cancel'] });
  const namedCard = `#pending [data-id="${named.id}"]`;
  await page.waitForSelector(namedCard);
  seen.cancelLooks = await page.evaluate((selector) => {
    const style = (element) => { const s = getComputedStyle(element); return `${s.backgroundColor}|${s.color}|${s.borderStyle}`; };
    const cardNode = document.querySelector(selector);
    return { option: style(cardNode.querySelector('button[data-option="cancel"]')), cancel: style(cardNode.querySelector('.cancel-open')) };
  }, namedCard);
  await page.click(`${namedCard} button[data-option="cancel"]`);
  await page.waitForSelector(`#settled [data-id="${named.id}"]`);
  seen.namedStored = await rest('GET', `/questions/${named.id}`);

  // A free-text question is answered by typing.
  const free = await ask('Which branch should I use?');
  await page.waitForSelector(`#pending [data-id="${free.id}"] textarea`);
  await page.fill(`#pending [data-id="${free.id}"] textarea`, 'release/2.0');
  await page.click(`#pending [data-id="${free.id}"] button:text("Answer")`);
  await page.waitForSelector(`#settled [data-id="${free.id}"]`);
  seen.freeStored = await rest('GET', `/questions/${free.id}`);

  // Answered elsewhere (here, over REST): the page follows.
  const elsewhere = await ask('Answered somewhere else?');
  await page.waitForSelector(`#pending [data-id="${elsewhere.id}"]`);
  await rest('PATCH', `/questions/${elsewhere.id}`, { response: 'yes, in Slack' });
  await page.waitForSelector(`#settled [data-id="${elsewhere.id}"]`);
  seen.elsewhereText = await page.textContent(`#settled [data-id="${elsewhere.id}"]`);

  // Cancelling asks for a reason and a confirmation, with the keyboard.
  const cancelled = await ask('Not needed any more?');
  const cancelCard = `#pending [data-id="${cancelled.id}"]`;
  await page.waitForSelector(cancelCard);
  await page.focus(`${cancelCard} .cancel-open`);
  await page.keyboard.press('Enter');
  seen.focusAfterCancelOpen = await page.evaluate(() => document.activeElement?.id);
  await page.click(`${cancelCard} button:text("Cancel the question")`);
  seen.cancelReasonError = await page.textContent(`${cancelCard} .cancel-confirm .field-error`);
  seen.stillPendingWithoutReason = (await rest('GET', `/questions/${cancelled.id}`)).status;
  await page.keyboard.type('the agent found the answer itself');
  await page.click(`${cancelCard} button:text("Cancel the question")`);
  await page.waitForSelector(`#settled [data-id="${cancelled.id}"]`);
  seen.cancelledStored = await rest('GET', `/questions/${cancelled.id}`);

  // Text from the question is shown as text, never run as markup.
  const hostile = await ask('<img src=x onerror="window.pwned=1">');
  await page.waitForSelector(`#pending [data-id="${hostile.id}"]`);
  seen.hostileText = await page.textContent(`#pending [data-id="${hostile.id}"] .content`);

  // Markdown and JSON context, rendered safely.
  const markdown = await ask('Merge the refactoring?', { context: MARKDOWN });
  const json = await ask('Deploy PR 42?', { context: JSON_CONTEXT });
  const md = `#pending [data-id="${markdown.id}"] .context`;
  await page.waitForSelector(md);
  await page.waitForSelector(`#pending [data-id="${json.id}"] .context`);
  seen.markdown = await page.$eval(md, (context) => ({
    heading: context.querySelector('h5')?.textContent,
    strong: context.querySelector('strong')?.textContent,
    em: context.querySelector('em')?.textContent,
    items: [...context.querySelectorAll('li')].map((li) => li.textContent),
    code: context.querySelector('code')?.textContent,
    links: [...context.querySelectorAll('a')].map((a) => ({ href: a.getAttribute('href'), rel: a.rel, text: a.textContent })),
    elements: [...context.querySelectorAll('script, img, iframe')].length,
    text: context.textContent,
  }));
  await page.click(`${md} >> text=a trap`);
  seen.json = await page.$eval(`#pending [data-id="${json.id}"] .context`, (context) => ({
    collapsible: context.querySelectorAll('details').length,
    summary: context.querySelector('summary')?.textContent,
    links: [...context.querySelectorAll('a')].map((a) => a.getAttribute('href')),
    text: context.textContent,
  }));
  seen.pwned = await page.evaluate(() => window.pwned ?? null);

  // Typed answers against the broker itself, where it takes them.
  const typed = await ask('Deploy how?', { responseSchema: FORM });
  seen.typedServer = Boolean(typed.responseSchema);
  if (seen.typedServer) {
    seen.typedForm = {};
    const typedCard = `#pending [data-id="${typed.id}"]`;
    await page.waitForSelector(`${typedCard} form`);
    await useForm(page, typedCard, seen.typedForm);
    await page.waitForSelector(`#settled [data-id="${typed.id}"]`);
    seen.typedStored = await rest('GET', `/questions/${typed.id}`);
  } else if (typed.id) {
    await rest('DELETE', `/questions/${typed.id}`);
  }
  const approval = await ask('Run the migration tool?', { kind: 'approval', reasonRequired: true });
  seen.approvalServer = approval.kind === 'approval';
  if (seen.approvalServer) {
    seen.approval = {};
    const approvalCard = `#pending [data-id="${approval.id}"]`;
    await page.waitForSelector(`${approvalCard} .approval`);
    await useApproval(page, approvalCard, seen.approval);
    await page.waitForSelector(`#settled [data-id="${approval.id}"]`);
    seen.approvalStored = await rest('GET', `/questions/${approval.id}`);
  } else if (approval.id) {
    await rest('DELETE', `/questions/${approval.id}`);
  }

  // An approval shows the call's arguments for editing; on this open broker it first asks who decides.
  const withArguments = await ask('Drop the old table?', { kind: 'approval', arguments: { table: 'users_old', cascade: true } });
  const argumentsCard = `#pending [data-id="${withArguments.id}"]`;
  await page.waitForSelector(`${argumentsCard} textarea.arguments`);
  seen.editing = { shown: JSON.parse(await page.inputValue(`${argumentsCard} textarea.arguments`)) };
  await page.fill('#me', '');
  await page.dispatchEvent('#me', 'change');
  await page.click(`${argumentsCard} button:text("Approve")`);
  seen.editing.approverError = await page.textContent(`#reason-${withArguments.id}-error`);
  seen.editing.focusedAfterApproverError = await page.evaluate(() => document.activeElement?.id);
  await page.fill('#me', `ark://users/person-${tag}`);
  await page.dispatchEvent('#me', 'change');
  await page.fill(`${argumentsCard} textarea.arguments`, '{"table": "users_old",');
  await page.click(`${argumentsCard} button:text("Approve")`);
  seen.editing.argumentsError = await page.textContent(`#arguments-${withArguments.id}-error`);
  seen.editing.statusWithBadArguments = (await rest('GET', `/questions/${withArguments.id}`)).status;
  await page.fill(`${argumentsCard} textarea.arguments`, '{"table": "users_old", "cascade": false}');
  await page.click(`${argumentsCard} button:text("Approve")`);
  await page.waitForSelector(`#settled [data-id="${withArguments.id}"]`);
  seen.editing.outcome = await page.textContent(`#settled [data-id="${withArguments.id}"] .outcome`);
  seen.editing.stored = await rest('GET', `/questions/${withArguments.id}`);

  // The page's side of typed answers, with the broker's side stubbed: forms from the schema and approvals.
  const formStub = stubQuestion(`q-form-${tag}`, { responseSchema: FORM });
  const formSent = await stub(page, formStub, 'replicas: must be at most 1 in production',
    (q, body) => answered(q, { answer: body.answer, answeredBy: body.answeredBy }));
  await page.goto(`${base}/#/questions/${formStub.id}`);
  const formCard = `#detail [data-id="${formStub.id}"]`;
  await page.waitForSelector(`${formCard} form`);
  seen.form = {
    labels: await page.$$eval(`${formCard} .field label`, (labels) => labels.map((l) => l.textContent)),
    inputs: await page.$$eval(`${formCard} .field :is(input, select)`, (inputs) => inputs.map((i) => `${i.name}:${i.type}`)),
  };
  await useForm(page, formCard, seen.form);
  await page.waitForFunction((selector) => document.querySelector(selector)?.textContent.includes('must be at most 1'),
    `${formCard} [data-field="replicas"] .field-error`);
  seen.form.serverError = await page.textContent(`${formCard} [data-field="replicas"] .field-error`);
  await page.fill(`${formCard} input[name="replicas"]`, '1');
  await page.click(`${formCard} button:text("Send answer")`);
  await page.waitForSelector(`${formCard} .outcome`);
  seen.form.outcome = await page.textContent(`${formCard} .outcome`);
  seen.form.sent = formSent;

  const approvalStub = stubQuestion(`q-approval-${tag}`, { kind: 'approval', reasonRequired: true,
    createdAt: new Date(Date.now() - 3 * 3600_000).toISOString(), expiresAt: new Date(Date.now() + 2 * 86400_000).toISOString() });
  const approvalSent = await stub(page, approvalStub, null,
    (q, body) => answered(q, { decision: { ...body.decision, decidedBy: 'ark://users/stub' } }));
  await page.goto(`${base}/#/questions/${approvalStub.id}`);
  const approvalCard = `#detail [data-id="${approvalStub.id}"]`;
  await page.waitForSelector(`${approvalCard} .approval`);
  seen.approvalForm = { ages: await page.$$eval(`${approvalCard} .meta time`, (times) => times.map((t) => t.textContent)) };
  await useApproval(page, approvalCard, seen.approvalForm);
  await page.waitForSelector(`${approvalCard} .outcome`);
  seen.approvalForm.outcome = await page.textContent(`${approvalCard} .outcome`);
  seen.approvalForm.sent = approvalSent;
  await page.unrouteAll();

  // The history searches the broker: it finds what was answered before the page opened.
  await page.goto(`${base}/#/`);
  await page.waitForSelector('#connection.live');
  await page.click('#nav-history');
  await page.fill('#h-q', `ARCHIVED-${tag}`);
  await page.click('#history-form button:text("Search")');
  await page.waitForSelector(`#history [data-id="${archived.id}"]`);
  seen.historyText = await page.textContent(`#history [data-id="${archived.id}"]`);
  await page.fill('#h-q', `bulk-${tag}`);
  await page.press('#h-q', 'Enter');
  await page.waitForFunction((marker) => document.querySelector('#history [data-id]')?.textContent.includes(marker), `bulk-${tag} number 20`);
  seen.firstPage = await page.$$eval('#history [data-id]', (cards) => cards.length);
  seen.loadMoreShown = await page.isVisible('#load-more');
  await page.click('#load-more');
  await page.waitForFunction(() => document.querySelectorAll('#history [data-id]').length > 20);
  seen.afterLoadMore = await page.$$eval('#history [data-id] .content', (contents) => contents.map((c) => c.textContent));
  seen.loadMoreAfter = await page.isVisible('#load-more');
  await page.fill('#h-q', '');
  await page.fill('#h-recipient', recipient);
  await page.selectOption('#h-status', 'pending');
  await page.waitForSelector(`#history [data-id="${hostile.id}"]`);
  seen.historyPendingOutcome = await page.textContent(`#history [data-id="${hostile.id}"] .outcome`);
  await page.selectOption('#h-status', 'cancelled');
  await page.waitForSelector(`#history [data-id="${cancelled.id}"]`);
  seen.cancelledFilter = await page.$$eval('#history [data-id]', (cards) => cards.map((c) => c.dataset.id));

  // A question's detail page shows its events: who did what, when, how, and why.
  await page.click(`#history [data-id="${cancelled.id}"] a.details`);
  await page.waitForSelector('#events .event:nth-child(2)');
  seen.cancelledEvents = await page.$$eval('#events .event', (events) => events.map((e) => e.textContent));
  seen.detailHash = await page.evaluate(() => location.hash);
  await page.goto(`${base}/#/questions/${archived.id}`);
  await page.waitForSelector('#events .event:nth-child(2)');
  seen.archivedEvents = await page.$$eval('#events .event', (events) => events.map((e) => e.textContent));
  seen.unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
    .filter((e) => !e.labels?.length && !e.getAttribute('aria-label')).map((e) => e.id || e.outerHTML));

  // At phone width nothing scrolls sideways: the waiting list (with the context), the history, a detail page.
  await page.setViewportSize({ width: 390, height: 844 });
  seen.narrow = {};
  for (const [name, hash, ready] of [['waiting', '#/', `#pending [data-id="${json.id}"]`],
    ['history', '#/history', '#history [data-id]'], ['detail', `#/questions/${json.id}`, '#events .event']]) {
    await page.goto(`${base}/${hash}`);
    await page.waitForSelector('#connection.live');
    await page.waitForSelector(ready);
    seen.narrow[name] = await page.evaluate(() => document.documentElement.scrollWidth);
  }

  // Desktop notifications: only once someone turns them on, for questions that arrive while the page is out of sight.
  const elsewhereContext = await browser.newContext();
  await elsewhereContext.grantPermissions(['notifications'], { origin: base });
  const away = await elsewhereContext.newPage();
  await away.addInitScript(() => {
    Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
    const Shown = window.Notification;
    window.shown = [];
    window.Notification = class extends Shown {
      constructor(title, options) {
        super(title, options);
        window.shown.push({ title, body: options.body, tag: options.tag });
      }
    };
  });
  await away.goto(`${base}/`);
  await away.waitForSelector('#connection.live');
  await away.fill('#filter', recipient);
  const unannounced = await ask('Asked before anyone wanted notifications?');
  await away.waitForSelector(`#pending [data-id="${unannounced.id}"]`);
  seen.notifiedBeforeOptIn = await away.evaluate(() => window.shown.length);
  await away.check('#notify');
  await away.waitForFunction(() => localStorage.getItem('ark-broker.notify') === 'on');
  const announced = await ask('Asked while you look elsewhere?', { sender: 'ark://agents/notifier' });
  await away.waitForFunction(() => window.shown.length > 0);
  seen.notifications = await away.evaluate(() => window.shown);
  seen.announcedId = announced.id;
  await elsewhereContext.close();

  // After a reload the page lists what is still pending.
  await page.goto(`${base}/`);
  await page.waitForSelector('#connection.live');
  await page.fill('#filter', recipient);
  seen.pendingAfterReload = await page.$$eval('#pending [data-id]', (cards) => cards.map((c) => c.dataset.id));
  seen.hostileId = hostile.id;
  seen.settledIds = [choice.id, named.id, free.id, elsewhere.id, cancelled.id];
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
