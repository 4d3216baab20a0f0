// Drive an A2A agent with the official JS SDK v1 client (`@a2a-js/sdk` 1.3.0), A2A v1.0.
//
// Usage: node drive_agent.mjs BASE_URL {jsonrpc|rest}
//
// BASE_URL is where the agent card is served, e.g. the URL
// `a2a serve --agent conformance --push-notifications --allow-local-webhooks` prints; the
// agent must behave like the conformance agent (messageId prefixes `tck-complete-task`,
// `tck-stream-001`, `tck-input-required`). Only the SDK's public client API is used:
// `ClientFactory` reads the card and picks the transport (`preferredTransports`), and the
// `Client` sends, streams, gets, lists, subscribes, cancels and creates, reads, lists and
// deletes a push config; a webhook on 127.0.0.1 checks the deliveries are v1.0
// `StreamResponse` documents with the token header. `A2A_API_KEY` rides on every request as
// `X-API-Key`.
//
// Prints one line per check; exits 0 when all pass, 1 on the first failure, 2 on bad usage.

import { randomUUID } from 'node:crypto';

import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';

import { BINDINGS, CheckFailed, GREETING, check, connect, main, ok, webhook } from '../js-common/drive.mjs';

/** JSON for messages: the SDK's objects hold Buffers and enums as numbers. */
function show(value) {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v)).slice(0, 400);
}

function message(prefix, text, task) {
  return {
    messageId: `${prefix}-${randomUUID()}`,
    contextId: task?.contextId ?? '',
    taskId: task?.id ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function send(msg, configuration = {}) {
  return {
    tenant: '',
    message: msg,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
      ...configuration,
    },
    metadata: undefined,
  };
}

function textOf(msg) {
  return (msg?.parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('');
}

/** A task, not a message, as a send answers it. */
function isTask(result) {
  return result !== undefined && 'status' in result && 'id' in result;
}

/** The call must fail with the SDK's error class `type` (the A2A error it mapped). */
async function refused(what, call, type) {
  try {
    await call();
  } catch (error) {
    check(error instanceof type, `${what}: ${error?.stack ?? error}`);
    ok(`${what} refused: ${error.constructor.name}: ${String(error.message).slice(0, 100)}`);
    return error;
  }
  throw new CheckFailed(`${what} succeeded`);
}

async function run(baseUrl, binding) {
  const client = await connect(baseUrl, binding, { ClientFactory, ClientFactoryOptions });
  const card = await client.getAgentCard();
  const chosen = card.supportedInterfaces.find((i) => i.protocolBinding === BINDINGS[binding]);
  check(chosen, `no ${BINDINGS[binding]} interface in ${show(card.supportedInterfaces)}`);
  ok(`card read: ${card.name}, ${card.supportedInterfaces.length} interfaces, ${BINDINGS[binding]} at ${chosen.url}`);
  check(client.protocolVersion.startsWith('1.'), `protocol version ${client.protocolVersion}`);
  ok(`client speaks ${client.protocolVersion}`);

  const sent = await client.sendMessage(send(message('tck-complete-task', 'hi')));
  check(isTask(sent), `send: ${show(sent)}`);
  check(sent.status.state === TaskState.TASK_STATE_COMPLETED, `send state ${sent.status.state}`);
  check(textOf(sent.status.message) === GREETING, `send greeting ${show(sent.status)}`);
  ok('sendMessage completed the task with the greeting');

  const events = [];
  for await (const event of client.sendMessageStream(send(message('tck-stream-001', 'stream')))) {
    events.push(event);
  }
  const cases = events.map((e) => e.payload?.$case);
  check(cases[0] === 'task', `stream first ${cases[0]}`);
  const last = events[events.length - 1].payload;
  check(last.$case === 'statusUpdate', `stream last ${show(last)}`);
  check(last.value.status.state === TaskState.TASK_STATE_COMPLETED, `stream last state ${last.value.status.state}`);
  ok(`sendMessageStream: ${events.length} events (${cases.join(', ')})`);

  const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
  check(got.id === sent.id && got.status.state === TaskState.TASK_STATE_COMPLETED, `get ${show(got)}`);
  ok('getTask');

  const listed = await client.listTasks({
    tenant: '',
    contextId: sent.contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 10,
    pageToken: '',
    statusTimestampAfter: undefined,
  });
  check(listed.tasks.some((t) => t.id === sent.id), `listTasks ${show(listed)}`);
  ok(`listTasks found the task among ${listed.tasks.length}`);

  const waiting = await client.sendMessage(send(message('tck-input-required', 'ask')));
  check(waiting.status.state === TaskState.TASK_STATE_INPUT_REQUIRED, `waiting ${waiting.status.state}`);
  ok('a task waiting for input');

  const hook = await webhook();
  try {
    const config = {
      tenant: '',
      id: 'js1',
      taskId: waiting.id,
      url: hook.url,
      token: 'tok-js',
      authentication: undefined,
    };
    const created = await client.createTaskPushNotificationConfig(config);
    check(created.url === hook.url && created.id === 'js1', `create ${show(created)}`);
    const read = await client.getTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: 'js1' });
    check(read.url === hook.url && read.token === 'tok-js', `get ${show(read)}`);
    const configs = await client.listTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, pageSize: 0, pageToken: '' });
    check(configs.configs.length === 1 && configs.configs[0].id === 'js1', `list ${show(configs)}`);
    ok('push config create, get, list');

    const done = await client.sendMessage(send(message('tck-complete-task', 'go on', waiting)));
    check(done.status.state === TaskState.TASK_STATE_COMPLETED, `follow-up ${done.status.state}`);
    const completed = (h) => h.body?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED';
    for (let i = 0; i < 200 && !hook.hits.some(completed); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    check(hook.hits.some(completed), `no completed delivery in ${show(hook.hits.map((h) => h.body))}`);
    for (const { body, headers } of hook.hits) {
      const member = Object.keys(body ?? {}).find((k) => ['task', 'message', 'statusUpdate', 'artifactUpdate'].includes(k));
      check(member, `push body ${show(body)}`);
      check(body.kind === undefined, `push body is v0.3-shaped ${show(body)}`);
      check(headers['x-a2a-notification-token'] === 'tok-js', `push token ${headers['x-a2a-notification-token']}`);
    }
    ok(`push: ${hook.hits.length} StreamResponse deliveries with the token header`);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: 'js1' });
    const after = await client.listTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, pageSize: 0, pageToken: '' });
    check(after.configs.length === 0, `after delete ${show(after)}`);
    ok('push config delete');
  } finally {
    hook.server.close();
  }

  const second = await client.sendMessage(send(message('tck-input-required', 'again')));
  const received = [];
  const follower = (async () => {
    for await (const event of client.resubscribeTask({ tenant: '', id: second.id })) {
      received.push(event);
      const payload = event.payload;
      if (payload?.$case === 'statusUpdate' && payload.value.status.state === TaskState.TASK_STATE_CANCELED) return;
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const canceled = await client.cancelTask({ tenant: '', id: second.id, metadata: undefined });
  check(canceled.status.state === TaskState.TASK_STATE_CANCELED, `cancel ${canceled.status.state}`);
  ok('cancelTask');
  await follower;
  const end = received[received.length - 1]?.payload;
  check(end?.$case === 'statusUpdate' && end.value.status.state === TaskState.TASK_STATE_CANCELED, `subscribe end ${show(end)}`);
  ok(`resubscribeTask followed the task to canceled (${received.length} events)`);

  await refused('cancel of a canceled task', () => client.cancelTask({ tenant: '', id: second.id, metadata: undefined }), TaskNotCancelableError);
  await refused('get of an unknown task', () => client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }), TaskNotFoundError);
  console.log(`all checks passed [${binding}]`);
}

await main(run);
