// Drives the dashboard in a real browser (the system's Chromium, through playwright-core) against a
// running broker, and prints one JSON line with what a person saw and what the API then said.
// Usage: node dashboard.mjs <rest base url> <chromium executable>
import { launch } from './browser.mjs';

const [base, executablePath] = process.argv.slice(2);
const tag = Math.random().toString(36).slice(2, 8);

async function rest(method, path, body) {
  const response = await fetch(base + path, {
    method, headers: { 'Content-Type': 'application/json' }, body: body && JSON.stringify(body),
  });
  return response.json();
}

const ask = (content, extra = {}) => rest('POST', '/questions',
  { recipient: `ark://users/d-${tag}`, sender: 'ark://agents/dashboard-test', content, ...extra });

const browser = await launch(executablePath);
const seen = {};
try {
  const page = await browser.newPage();
  await page.goto(base + '/');
  await page.waitForSelector('#connection.live');
  seen.title = await page.title();
  seen.identity = await page.textContent('#identity');
  await page.fill('#me', `ark://users/person-${tag}`);
  await page.dispatchEvent('#me', 'change');
  await page.fill('#filter', `ark://users/d-${tag}`);
  seen.emptyText = await page.textContent('#pending');

  // A question asked after the page opened appears without a reload, and its option buttons answer it.
  const choice = await ask('Ship release 2.0?', { options: ['ship', 'wait'], priority: 'high', context: 'All checks are green' });
  const card = `#pending [data-id="${choice.id}"]`;
  await page.waitForSelector(card);
  seen.cardText = await page.textContent(card);
  await page.click(`${card} button[data-option="ship"]`);
  await page.waitForSelector(`#settled [data-id="${choice.id}"]`);
  seen.pendingAfterClick = await page.$$eval(card, (cards) => cards.length);
  seen.settledText = await page.textContent(`#settled [data-id="${choice.id}"]`);
  seen.choiceStored = await rest('GET', `/questions/${choice.id}`);

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

  // Cancelling from the page.
  const cancelled = await ask('Not needed any more?');
  await page.waitForSelector(`#pending [data-id="${cancelled.id}"]`);
  await page.click(`#pending [data-id="${cancelled.id}"] button:text("Cancel question")`);
  await page.waitForSelector(`#settled [data-id="${cancelled.id}"]`);
  seen.cancelledStored = await rest('GET', `/questions/${cancelled.id}`);

  // Text from the question is shown as text, never run as markup.
  const hostile = await ask('<img src=x onerror="window.pwned=1">');
  await page.waitForSelector(`#pending [data-id="${hostile.id}"]`);
  seen.pwned = await page.evaluate(() => window.pwned === 1);
  seen.hostileText = await page.textContent(`#pending [data-id="${hostile.id}"] .content`);

  // After a reload the page lists what is still pending.
  await page.reload();
  await page.waitForSelector('#connection.live');
  await page.fill('#filter', `ark://users/d-${tag}`);
  seen.pendingAfterReload = await page.$$eval('#pending [data-id]', (cards) => cards.map((c) => c.dataset.id));
  seen.hostileId = hostile.id;
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
