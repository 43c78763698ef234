// Drives the broker with the official MCP TypeScript SDK client, one scenario per run, and prints one
// JSON line with what the client saw. The Java test that runs it asserts on that line.
// Usage: node sdk-client.mjs <mcp url> <rest base url> <scenario>
// With authentication on, ARK_MCP_TOKEN is the bearer token the MCP client sends, ARK_REST_TOKEN the one the
// REST calls that answer send (the recipient's), and ARK_RECIPIENT whom the questions are for.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ResourceUpdatedNotificationSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const [mcpUrl, restUrl, scenario] = process.argv.slice(2);
const { ARK_MCP_TOKEN: mcpToken, ARK_REST_TOKEN: restToken } = process.env;
const recipient = process.env.ARK_RECIPIENT ?? `ark://users/sdk-${Math.random().toString(36).slice(2, 10)}`;
const askArgs = { recipient, content: 'May I merge PR #42?', options: ['yes', 'no'], priority: 'high' };

// Resolves once the SDK's standalone GET stream is open: the server then holds it for notifications.
let standaloneOpened;
const standaloneOpen = new Promise((resolve) => { standaloneOpened = resolve; });

async function watchingFetch(url, init) {
  const response = await fetch(url, init);
  if (init?.method === 'GET' && response.ok) standaloneOpened();
  return response;
}

async function connect(options = {}) {
  const client = new Client({ name: 'ark-broker-sdk-test', version: '1.0.0' }, { capabilities: {} });
  const requestInit = mcpToken ? { headers: { Authorization: `Bearer ${mcpToken}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { fetch: watchingFetch, requestInit, ...options }));
  return client;
}

async function rest(method, path, body) {
  const response = await fetch(restUrl + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(restToken ? { Authorization: `Bearer ${restToken}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function pendingQuestionId() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const list = await rest('GET', `/questions?status=pending&recipient=${encodeURIComponent(recipient)}`);
    if (list.body.items.length > 0) return list.body.items[0].id;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the question never appeared');
}

// An OAuth client that has no token yet: it records what the SDK discovered from the 401 and where it would
// send the user to sign in, which is where a real client's authorization flow starts.
function signInRecorder() {
  const seen = {};
  const provider = {
    get redirectUrl() { return 'http://127.0.0.1/callback'; },
    get clientMetadata() { return { redirect_uris: ['http://127.0.0.1/callback'], client_name: 'ark-broker-sdk-test' }; },
    clientInformation: () => ({ client_id: 'ark-broker-sdk-test' }),
    tokens: () => undefined,
    saveTokens: () => {},
    saveCodeVerifier: () => {},
    codeVerifier: () => 'verifier',
    saveDiscoveryState: (state) => { seen.discovered = state.resourceMetadata; },
    redirectToAuthorization: (url) => { seen.authorizationUrl = url.toString(); },
  };
  return { provider, seen };
}

const scenarios = {
  // Without a token: the SDK's error, the challenge it got, and the metadata it finds by it.
  async unauthorized() {
    const seen = {};
    try {
      await connect({
        fetch: async (url, init) => {
          const response = await fetch(url, init);
          if (response.status === 401) {
            seen.status = response.status;
            seen.challenge = response.headers.get('WWW-Authenticate');
            seen.resourceMetadataUrl = extractWWWAuthenticateParams(response).resourceMetadataUrl?.toString();
          }
          return response;
        },
      });
      seen.connected = true;
    } catch (error) {
      seen.error = { name: error.constructor.name, code: error.code, message: error.message,
        isStreamableHttpError: error instanceof StreamableHTTPError };
    }
    const { provider, seen: signIn } = signInRecorder();
    try {
      await connect({ authProvider: provider });
      signIn.connected = true;
    } catch (error) {
      signIn.error = { name: error.constructor.name, isUnauthorizedError: error instanceof UnauthorizedError };
    }
    return { ...seen, signIn };
  },


  // A task-augmented ask_question, answered over REST, whose answer comes back through tasks/result.
  async task() {
    const client = await connect();
    const tools = await client.listTools();
    const seen = { taskSupport: tools.tools.find((t) => t.name === 'ask_question').execution?.taskSupport, statuses: [] };
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'ask_question', arguments: askArgs }, CallToolResultSchema, { task: { ttl: 60000 } })) {
      if (message.type === 'taskCreated') {
        seen.taskId = message.task.taskId;
        seen.statuses.push(message.task.status);
        // With authentication on the answer is the recipient's own, so it names no one else.
        const reply = await rest('PATCH', `/questions/${message.task.taskId}`,
          { response: 'yes', ...(restToken ? {} : { answeredBy: 'ark://users/reviewer' }) });
        if (reply.status !== 200) throw new Error(`answering failed: ${JSON.stringify(reply)}`);
      } else if (message.type === 'taskStatus') {
        seen.statuses.push(message.task.status);
      } else if (message.type === 'result') {
        seen.result = message.result;
      } else if (message.type === 'error') {
        throw message.error;
      }
    }
    seen.viaTasksResult = await client.experimental.tasks.getTaskResult(seen.taskId, CallToolResultSchema);
    await client.close();
    return seen;
  },

  // A plain ask_question: progress notifications on the call's own stream, then the answer.
  async plain() {
    const client = await connect();
    const progress = [];
    let answered = false;
    const result = await client.callTool({ name: 'ask_question', arguments: askArgs }, CallToolResultSchema, {
      timeout: 30000,
      resetTimeoutOnProgress: true,
      onprogress: async (notification) => {
        progress.push(notification);
        if (!answered) {
          answered = true;
          const reply = await rest('PATCH', `/questions/${await pendingQuestionId()}`, { response: 'no' });
          if (reply.status !== 200) throw new Error(`answering failed: ${JSON.stringify(reply)}`);
        }
      },
    });
    await client.close();
    return { progress, result };
  },

  // A plain ask_question with the SDK's defaults (a 60 s timeout that progress does not extend, no progress token):
  // the broker returns the question as pending before that, with its id and the get_question call that waits for
  // the answer; that call, made as the result says, returns the answer.
  async defaults() {
    const client = await connect();
    await client.listTools();
    const started = Date.now();
    const pending = await client.callTool({ name: 'ask_question', arguments: askArgs });
    const waitedMs = Date.now() - started;
    const followUp = JSON.parse(pending.content[0].text.match(/call get_question with (\{[^}]*\})/)[1]);
    const collecting = client.callTool({ name: 'get_question', arguments: followUp });
    const reply = await rest('PATCH', `/questions/${pending.structuredContent.questionId}`, { response: 'yes' });
    if (reply.status !== 200) throw new Error(`answering failed: ${JSON.stringify(reply)}`);
    const collected = await collecting;
    await client.close();
    return { waitedMs, pending, followUp, collected };
  },

  // Typed questions, with the tool list fetched first so that the SDK checks structuredContent against the
  // outputSchema: a form answered while the call waits, then an approval asked with waitSeconds that comes back
  // pending and is collected with get_question once decided.
  async typed() {
    const client = await connect();
    await client.listTools();
    let answered = false;
    const form = await client.callTool({ name: 'ask_question', arguments: {
      recipient, content: 'How many replicas?', responseSchema: {
        type: 'object', properties: { replicas: { type: 'integer', minimum: 1, maximum: 10 }, env: { type: 'string', enum: ['staging', 'prod'] } },
        required: ['replicas'] } } }, CallToolResultSchema, {
      timeout: 30000,
      resetTimeoutOnProgress: true,
      onprogress: async () => {
        if (answered) return;
        answered = true;
        const id = await pendingQuestionId();
        const refused = await rest('PATCH', `/questions/${id}`, { answer: { replicas: 11 } });
        if (refused.status !== 400) throw new Error(`a wrong answer was not refused: ${JSON.stringify(refused)}`);
        const reply = await rest('PATCH', `/questions/${id}`, { answer: { replicas: 4, env: 'prod' } });
        if (reply.status !== 200) throw new Error(`answering failed: ${JSON.stringify(reply)}`);
      },
    });
    const pending = await client.callTool({ name: 'ask_question', arguments: {
      recipient, content: 'May I delete branch old-ui?', kind: 'approval', waitSeconds: 1 } }, CallToolResultSchema);
    const questionId = pending.structuredContent.questionId;
    const decided = await rest('PATCH', `/questions/${questionId}`, { decision: { action: 'approved', reason: 'merged long ago' } });
    if (decided.status !== 200) throw new Error(`deciding failed: ${JSON.stringify(decided)}`);
    const collected = await client.callTool({ name: 'get_question', arguments: { questionId } }, CallToolResultSchema);
    await client.close();
    return { form, pending, collected };
  },

  // The same tool call asked again (same query and tool call id, a new session) finds the same task.
  async replay() {
    const meta = {
      'ark.mckinsey.com/query': { namespace: 'default', name: `query-${Math.random().toString(36).slice(2, 8)}` },
      'ark.mckinsey.com/tool-call-id': 'call_replayed',
    };
    const ask = async () => {
      const client = await connect();
      const created = await client.request({
        method: 'tools/call',
        params: { name: 'ask_question', arguments: askArgs, task: {}, _meta: meta },
      }, CreateTaskResultSchema);
      await client.close();
      return created.task.taskId;
    };
    const first = await ask();
    const second = await ask();
    const questions = await rest('GET', `/questions?recipient=${encodeURIComponent(recipient)}`);
    return { first, second, questions: questions.body.items.length };
  },

  // tasks/cancel withdraws the question; its result then says it was cancelled.
  async cancel() {
    const client = await connect();
    const created = await client.request({
      method: 'tools/call', params: { name: 'ask_question', arguments: askArgs, task: {} },
    }, CreateTaskResultSchema);
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    const task = await client.experimental.tasks.getTask(created.task.taskId);
    const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    const question = await rest('GET', `/questions/${created.task.taskId}`);
    let cancelAgain;
    try {
      await client.experimental.tasks.cancelTask(created.task.taskId);
    } catch (error) {
      cancelAgain = { code: error.code, message: error.message };
    }
    const listed = await client.experimental.tasks.listTasks();
    await client.close();
    return { cancelled, task, result, questionStatus: question.body.status, cancelAgain, listed: listed.tasks.map((t) => t.taskId) };
  },

  // A subscription to a question's resource hears of its answer.
  async subscribe() {
    const client = await connect();
    const created = await client.request({
      method: 'tools/call', params: { name: 'ask_question', arguments: askArgs, task: {} },
    }, CreateTaskResultSchema);
    const uri = `ark://questions/${created.task.taskId}`;
    const updated = new Promise((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema,
      (notification) => resolve(notification.params)));
    const statuses = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => statuses.push(notification.params.status));
    await client.subscribeResource({ uri });
    await standaloneOpen; // the notification travels on the session's standalone stream
    await rest('PATCH', `/questions/${created.task.taskId}`, { response: 'yes' });
    const notification = await Promise.race([updated,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no resources/updated within 10 s')), 10000))]);
    const read = await client.readResource({ uri });
    await client.close();
    return { uri, notification, statuses, read: JSON.parse(read.contents[0].text) };
  },
};

try {
  const outcome = await scenarios[scenario]();
  console.log(JSON.stringify(outcome));
  process.exit(0);
} catch (error) {
  console.error(`scenario ${scenario} failed: ${error?.stack ?? error}`);
  process.exit(1);
}
