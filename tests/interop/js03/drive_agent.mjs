// Drive an A2A agent with the official JS SDK v0.3 client (`@a2a-js/sdk` 0.3.14).
//
// Usage: node drive_agent.mjs BASE_URL {jsonrpc|rest}
//
// BASE_URL is where the agent card is served, e.g. the URL
// `a2a serve --agent conformance --push-notifications --allow-local-webhooks` prints; the
// agent must behave like the conformance agent (messageId prefixes `tck-complete-task`,
// `tck-stream-001`, `tck-input-required`). Only the SDK's public client API is used:
// `ClientFactory` reads the card and picks the transport (`preferredTransports`), and the
// `Client` sends, streams, gets, resubscribes, cancels and sets, reads, lists and deletes a
// push config; a webhook on 127.0.0.1 checks the delivery is the v0.3 Task with the v0.3
// token header. `A2A_API_KEY` rides on every request as `X-API-Key`.
//
// Prints one line per check; exits 0 when all pass, 1 on the first failure, 2 on bad usage.

import { randomUUID } from 'node:crypto';

import { ClientFactory, ClientFactoryOptions, TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/client';

import { CheckFailed, GREETING, check, connect, main, ok, webhook } from '../js-common/drive.mjs';

function message(prefix, text, task) {
  const msg = {
    kind: 'message',
    messageId: `${prefix}-${randomUUID()}`,
    role: 'user',
    parts: [{ kind: 'text', text }],
  };
  if (task) {
    msg.taskId = task.id;
    msg.contextId = task.contextId;
  }
  return msg;
}

function textOf(msg) {
  return (msg?.parts ?? []).filter((p) => p.kind === 'text').map((p) => p.text).join('');
}

async function run(baseUrl, binding) {
  const client = await connect(baseUrl, binding, { ClientFactory, ClientFactoryOptions });
  const card = await client.getAgentCard();
  ok(`card read: ${card.protocolVersion} ${card.preferredTransport} ${card.url}`);

  const sent = await client.sendMessage({ message: message('tck-complete-task', 'hi'), configuration: { blocking: true } });
  check(sent.kind === 'task', `send: ${JSON.stringify(sent)}`);
  check(sent.status.state === 'completed', `send state ${sent.status.state}`);
  check(textOf(sent.status.message) === GREETING, `send greeting ${JSON.stringify(sent.status)}`);
  ok('sendMessage completed the task with the greeting');

  const events = [];
  for await (const event of client.sendMessageStream({ message: message('tck-stream-001', 'stream') })) {
    events.push(event);
  }
  const last = events[events.length - 1];
  check(last.kind === 'status-update' && last.final === true, `stream last ${JSON.stringify(last)}`);
  check(last.status.state === 'completed', `stream last state ${last.status.state}`);
  check(events.filter((e) => e.final === true).length === 1, 'one final update');
  ok(`sendMessageStream: ${events.length} events (${events.map((e) => e.kind).join(', ')})`);

  const got = await client.getTask({ id: sent.id });
  check(got.id === sent.id && got.status.state === 'completed', `get ${JSON.stringify(got)}`);
  ok('getTask');

  const waiting = await client.sendMessage({ message: message('tck-input-required', 'ask'), configuration: { blocking: true } });
  check(waiting.status.state === 'input-required', `waiting ${waiting.status.state}`);
  ok('a task waiting for input');

  const hook = await webhook();
  try {
    const config = { taskId: waiting.id, pushNotificationConfig: { id: 'js03', url: hook.url, token: 'tok-js' } };
    const set = await client.setTaskPushNotificationConfig(config);
    check(set.pushNotificationConfig.url === hook.url, `set ${JSON.stringify(set)}`);
    const read = await client.getTaskPushNotificationConfig({ id: waiting.id, pushNotificationConfigId: 'js03' });
    check(read.pushNotificationConfig.url === hook.url && read.pushNotificationConfig.token === 'tok-js', `get ${JSON.stringify(read)}`);
    const listed = await client.listTaskPushNotificationConfig({ id: waiting.id });
    check(listed.length === 1 && listed[0].pushNotificationConfig.id === 'js03', `list ${JSON.stringify(listed)}`);
    ok('push config set, get, list');

    const done = await client.sendMessage({ message: message('tck-complete-task', 'go on', waiting), configuration: { blocking: true } });
    check(done.status.state === 'completed', `follow-up ${done.status.state}`);
    for (let i = 0; i < 200 && !hook.hits.some((h) => h.body?.status?.state === 'completed'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    check(hook.hits.length > 0, 'no push delivery');
    for (const { body, headers } of hook.hits) {
      check(body.kind === 'task' && body.id === waiting.id, `push body ${JSON.stringify(body)}`);
      check(headers['x-a2a-notification-token'] === 'tok-js', `push token ${headers['x-a2a-notification-token']}`);
    }
    ok(`push: ${hook.hits.length} v0.3 Task deliveries with the token header`);
    await client.deleteTaskPushNotificationConfig({ id: waiting.id, pushNotificationConfigId: 'js03' });
    const after = await client.listTaskPushNotificationConfig({ id: waiting.id });
    check(after.length === 0, `after delete ${JSON.stringify(after)}`);
    ok('push config delete');
  } finally {
    hook.server.close();
  }

  const second = await client.sendMessage({ message: message('tck-input-required', 'again'), configuration: { blocking: true } });
  const received = [];
  const follower = (async () => {
    for await (const event of client.resubscribeTask({ id: second.id })) {
      received.push(event);
      if (event.kind === 'status-update' && event.final) return;
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const canceled = await client.cancelTask({ id: second.id });
  check(canceled.status.state === 'canceled', `cancel ${canceled.status.state}`);
  ok('cancelTask');
  await follower;
  const end = received[received.length - 1];
  check(end?.kind === 'status-update' && end.status.state === 'canceled', `resubscribe end ${JSON.stringify(end)}`);
  ok(`resubscribeTask followed the task to canceled (${received.length} events)`);

  for (const [what, call, type] of [
    ['cancel of a canceled task', () => client.cancelTask({ id: second.id }), TaskNotCancelableError],
    ['get of an unknown task', () => client.getTask({ id: 'no-such-task' }), TaskNotFoundError],
  ]) {
    try {
      await call();
    } catch (error) {
      // The REST transport maps the v0.3 code to the SDK's error classes.
      if (binding === 'rest') check(error instanceof type, `${what}: ${error}`);
      ok(`${what} refused: ${error.constructor.name}: ${String(error.message).slice(0, 100)}`);
      continue;
    }
    throw new CheckFailed(`${what} succeeded`);
  }
  console.log(`all checks passed [${binding}]`);
}

await main(run);
