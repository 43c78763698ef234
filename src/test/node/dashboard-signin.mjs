// Signs in to the dashboard of a broker that authenticates, in a real browser (the system's Chromium, through
// playwright-core), and prints one JSON line with what a person saw and what the API then said.
// Usage: node dashboard-signin.mjs token <rest base url> <chromium executable> <{"agent","human","admin"} tokens as JSON>
//        node dashboard-signin.mjs oidc <rest base url> <chromium executable>
import { launch } from './browser.mjs';

const [mode, base, executablePath, tokensJson] = process.argv.slice(2);
const tokens = tokensJson ? JSON.parse(tokensJson) : {};
const tag = Math.random().toString(36).slice(2, 8);

async function rest(token, method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: body && JSON.stringify(body),
  });
  return response.json();
}

const signInShown = '#sign-in:not([hidden])';
const storedToken = (page) => page.evaluate(() => sessionStorage.getItem('ark-broker.token') !== null);

async function withToken(page, seen) {
  await page.goto(base + '/');
  await page.waitForSelector(signInShown);
  seen.questionsHiddenBeforeSignIn = await page.isHidden('#questions');
  seen.oidcOffered = await page.isVisible('#oidc');

  // A token the broker does not know: an error, and still the sign-in panel.
  await page.fill('#token', 'not-a-token');
  await page.click('#token-form button[type="submit"]');
  await page.waitForSelector('#sign-in-error:not(:empty)');
  seen.badTokenError = await page.textContent('#sign-in-error');
  seen.signInAfterBadToken = await page.isVisible('#sign-in');
  seen.keptBadToken = await storedToken(page);

  await page.fill('#token', tokens.human);
  await page.click('#token-form button[type="submit"]');
  await page.waitForSelector('#connection.live');
  seen.name = await page.textContent('#identity .name');
  seen.identityDetail = await page.textContent('#identity .detail');
  seen.answeredByFieldShown = await page.isVisible('#me');
  seen.signInAfterGoodToken = await page.isVisible('#sign-in');

  // Signed in, the tab keeps its token across a reload.
  await page.reload();
  await page.waitForSelector('#connection.live');
  seen.nameAfterReload = await page.textContent('#identity .name');

  // Asked after sign-in: it comes in over the watch, which carries the token.
  const asked = await rest(tokens.agent, 'POST', '/questions',
    { recipient: 'ark://users/ann', content: `Merge PR ${tag}?`, options: ['merge', 'hold'] });
  const card = `#pending [data-id="${asked.id}"]`;
  await page.waitForSelector(card);
  seen.cardText = await page.textContent(card);
  await page.click(`${card} button[data-option="merge"]`);
  await page.waitForSelector(`#settled [data-id="${asked.id}"]`);
  seen.settledText = await page.textContent(`#settled [data-id="${asked.id}"]`);
  seen.answered = await rest(tokens.admin, 'GET', `/questions/${asked.id}`);

  // Ann sent this one herself (an admin asked on her behalf), so she sees it, but only bob may answer it.
  const notHers = await rest(tokens.admin, 'POST', '/questions',
    { sender: 'ark://users/ann', recipient: 'ark://users/bob', content: `Bob, approve ${tag}?` });
  const notHersCard = `#pending [data-id="${notHers.id}"]`;
  await page.waitForSelector(`${notHersCard} textarea`);
  await page.fill(`${notHersCard} textarea`, 'approved');
  await page.click(`${notHersCard} button:text("Answer")`);
  await page.waitForSelector(`${notHersCard} .error`);
  seen.refusal = await page.textContent(`${notHersCard} .error`);
  seen.notHersStored = await rest(tokens.admin, 'GET', `/questions/${notHers.id}`);

  // Declining a question addressed to her.
  const declined = await rest(tokens.agent, 'POST', '/questions', { recipient: 'ark://users/ann', content: `Rebase ${tag}?` });
  await page.waitForSelector(`#pending [data-id="${declined.id}"]`);
  await page.click(`#pending [data-id="${declined.id}"] button:text("Cancel question…")`);
  await page.fill(`#pending [data-id="${declined.id}"] .cancel-confirm textarea`, 'not mine to rebase');
  await page.click(`#pending [data-id="${declined.id}"] button:text("Cancel the question")`);
  await page.waitForSelector(`#settled [data-id="${declined.id}"]`);
  seen.declinedStored = await rest(tokens.admin, 'GET', `/questions/${declined.id}`);
  seen.declinedEvents = await rest(tokens.admin, 'GET', `/questions/${declined.id}/events`);

  await page.click('#sign-out');
  await page.waitForSelector(signInShown);
  seen.questionsHiddenAfterSignOut = await page.isHidden('#questions');
  seen.keptTokenAfterSignOut = await storedToken(page);
  seen.cardsAfterSignOut = await page.$$eval('#pending [data-id]', (cards) => cards.length);
}

async function withOidc(page, seen) {
  await page.goto(base + '/');
  await page.waitForSelector(signInShown);
  seen.oidcOffered = await page.isVisible('#oidc');
  // To the issuer and back: it signs in without a form, the page trades the code for a token. The issuer's first
  // token is for another service, which the broker refuses; its second is for the broker.
  await page.click('#oidc');
  await page.waitForSelector('#sign-in-error:not(:empty)');
  seen.wrongAudienceError = await page.textContent('#sign-in-error');
  seen.keptWrongAudienceToken = await storedToken(page);
  await page.click('#oidc');
  await page.waitForSelector('#connection.live');
  seen.name = await page.textContent('#identity .name');
  seen.identityDetail = await page.textContent('#identity .detail');
  seen.url = page.url();
  seen.keptToken = await storedToken(page);
}

const browser = await launch(executablePath);
const seen = {};
try {
  const page = await browser.newPage();
  const blocked = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  await (mode === 'oidc' ? withOidc(page, seen) : withToken(page, seen));
  seen.blockedByContentSecurityPolicy = blocked;
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
